"""The small Burgers deck stays close to the exact solution.

The bounds sit about 30% above the errors measured when the test was written
(L2 2.95e-3, max 3.49e-2 at 32^3, t = 0.05), so a regression in the scheme or
the boundary values fails it.
usage: test_burgers_verification.py --sus S --mpirun M [--mpirun-flag F]... DECK RANKS
"""
import sys

from sus_runner import Sus, parse_common_args

L2_BOUND = 4.0e-3
MAX_BOUND = 4.5e-2


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    run = Sus(sus_path, mpirun, flags).run(rest[0], ranks=int(rest[1]))
    if run.returncode != 0:
        print(run.describe())
        sys.exit(1)
    l2, worst = run.analysis["L2 error"], run.analysis["max error"]
    ok = 0.0 < l2 < L2_BOUND and 0.0 < worst < MAX_BOUND
    print(f"L2 error {l2:.4e} (bound {L2_BOUND}), max error {worst:.4e} (bound {MAX_BOUND})")
    print(f"{1 if ok else 0} passed, {0 if ok else 1} failed")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
