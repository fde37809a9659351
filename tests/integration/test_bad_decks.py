"""Every bad deck makes sus exit 1 with an error naming the file, line and key,
printed once: on 1 rank (--validate) and on 3, where a rank without patches
must agree (2 ranks tell nothing the two do not).

Each deck in the folder lists what its error must contain in `# expect:` lines.
usage: test_bad_decks.py --sus S --mpirun M [--mpirun-flag F]... FOLDER
"""
import pathlib
import sys

from sus_runner import Sus, parse_common_args


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    sus = Sus(sus_path, mpirun, flags)
    passed = failed = 0
    for deck in sorted(pathlib.Path(rest[0]).glob("*.yaml")):
        expected = [line.split("expect:", 1)[1].strip()
                    for line in deck.read_text().splitlines() if line.startswith("# expect:")]
        for mode, run in (("run on 3 ranks", sus.run(str(deck), ranks=3)),
                          ("--validate", sus.run_serial(["--validate", str(deck)]))):
            missing = [text for text in expected if text not in run.stderr]
            messages = run.stderr.count("sus: error")
            ok = run.returncode == 1 and not missing and expected and messages == 1
            print(f"{'ok  ' if ok else 'FAIL'} {deck.name} ({mode}): exit {run.returncode}: "
                  f"{run.stderr.strip().splitlines()[-1] if run.stderr.strip() else '(no error)'}")
            if not ok:
                print(f"  missing {missing}, {messages} error messages\n{run.describe()}")
            passed, failed = (passed + 1, failed) if ok else (passed, failed + 1)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
