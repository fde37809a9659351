"""The answers of the Burgers decks are pinned: making the component or the
runtime faster must not change a bit of them. Every deck in inputs/Burgers/
has its field digest recorded here (measured before the speed work began);
each is run on 1 and 2 ranks, in the host and async modes and in another
patch layout, and must give exactly that digest. The hand-written reference
program of the benchmark (burgers-reference) must give it too: it does the
same arithmetic without the framework.

usage: test_burgers_digests.py --sus S --mpirun M [--mpirun-flag F]... DECK_DIR REFERENCE
"""
import os
import pathlib
import re
import subprocess
import sys

from sus_runner import Checks, Sus, parse_common_args

# deck -> (digest of u, the deck's resolution and steps for the reference)
PINNED = {
    "burgers.yaml": ("de2e50830c490036", ["--resolution", "32", "--steps", "1000", "--max-time", "0.05"]),
    "burgers_large.yaml": ("74fcfb52126482a1", ["--resolution", "128", "--steps", "20", "--max-time", "1.0"]),
}
RUNS = [
    # (ranks, sus options, deck settings)
    (1, ["--scheduler", "host"], []),
    (2, ["--scheduler", "async"], []),
    (2, ["--scheduler", "host"], ["grid.level.patches=[4,2,3]"]),
]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck_dir, reference = pathlib.Path(rest[0]), rest[1]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    decks = sorted(p.name for p in deck_dir.glob("*.yaml"))
    check("every deck in inputs/Burgers has a pinned digest", set(decks) == set(PINNED),
          f"decks {decks}, pinned {sorted(PINNED)}: record the digest of a new deck here")
    for deck in decks:
        if deck not in PINNED:
            continue
        digest, reference_args = PINNED[deck]
        for ranks, options, sets in RUNS:
            run = sus.run(str(deck_dir / deck), ranks=ranks, options=options, sets=sets, timeout=600)
            got = run.digests.get("u")
            check(f"{deck} on {ranks} rank(s) {' '.join(options + sets)}: digest {got}",
                  run.returncode == 0 and got == digest, run.describe())
        # Huge pages change where the arrays live, never a bit of the answer.
        for variant in (reference_args, reference_args + ["--huge-pages", "1"]):
            done = subprocess.run([reference, *variant], capture_output=True, text=True,
                                  timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
            found = re.search(r"^digest u ([0-9a-f]{16})$", done.stdout, re.M)
            got = found.group(1) if found else None
            check(f"burgers-reference {' '.join(variant)}: digest {got}",
                  done.returncode == 0 and got == digest, done.stdout + done.stderr)
    check.finish()


if __name__ == "__main__":
    main()
