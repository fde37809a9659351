"""sus options: --version, --help, --validate, --max-timesteps, --emit-taskgraph, --set, exit codes.

usage: test_sus_cli.py --sus S --mpirun M [--mpirun-flag F]... DECK WORKDIR
"""
import pathlib
import sys

from sus_runner import Sus, parse_common_args


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, workdir = rest[0], pathlib.Path(rest[1])
    workdir.mkdir(parents=True, exist_ok=True)
    sus = Sus(sus_path, mpirun, flags)
    checks = []

    def check(name, condition, run):
        checks.append(condition)
        print(f"{'ok  ' if condition else 'FAIL'} {name}")
        if not condition:
            print(run.describe())

    run = sus.run_serial(["--version"])
    check("--version prints the version and exits 0", run.returncode == 0 and "Tessera" in run.stdout, run)
    run = sus.run_serial(["--help"])
    check("--help lists the options", run.returncode == 0 and "--emit-taskgraph" in run.stdout, run)
    run = sus.run_serial([])
    check("no deck is a usage error (exit 1)", run.returncode == 1, run)
    run = sus.run_serial(["--no-such-option", deck])
    check("an unknown option is a usage error (exit 1)", run.returncode == 1, run)
    run = sus.run_serial([str(workdir / "missing.yaml")])
    check("a missing deck file is exit 1", run.returncode == 1, run)
    run = sus.run_serial(["--validate", deck])
    check("--validate accepts the example deck", run.returncode == 0 and "valid" in run.stdout, run)
    run = sus.run_serial(["--validate", "--set", "grid.level.resolution=[0,4,4]", deck])
    check("--validate rejects an out-of-range override (exit 1)",
          run.returncode == 1 and "grid.level.resolution" in run.stderr, run)

    run = sus.run(deck, ranks=2, options=["--max-timesteps", "3"])
    check("--max-timesteps stops after 3 steps", run.returncode == 0 and run.timesteps == 3, run)

    dot = workdir / "taskgraph.dot"
    dot.unlink(missing_ok=True)
    run = sus.run(deck, ranks=2, options=["--max-timesteps", "1", "--emit-taskgraph", str(dot)])
    text = dot.read_text() if dot.exists() else ""
    check("--emit-taskgraph writes a DOT graph with both ranks and messages",
          run.returncode == 0 and text.startswith("digraph") and "cluster_rank1" in text
          and "style=dashed" in text and "Burgers::timeAdvance" in text, run)

    print(f"{sum(checks)} passed, {len(checks) - sum(checks)} failed")
    sys.exit(0 if all(checks) else 1)


if __name__ == "__main__":
    main()
