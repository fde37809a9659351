"""Burgers converges to the exact solution at first order.

Runs 32^3, 64^3 and 128^3 to the same final time, prints the error table and
checks that the L2 error falls monotonically with an observed order of at
least 0.8 on the finest pair (the scheme is first-order upwind).

usage: test_burgers_convergence.py --sus S --mpirun M [--mpirun-flag F]... DECK RANKS
"""
import math
import sys

from sus_runner import Sus, parse_common_args

RESOLUTIONS = [32, 64, 128]
FINAL_TIME = 0.1
MIN_ORDER = 0.8


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, ranks = rest[0], int(rest[1])
    sus = Sus(sus_path, mpirun, flags)
    errors = []
    print(f"{'cells':>8} {'steps':>6} {'L2 error':>12} {'max error':>12} {'L2 order':>9}")
    for n in RESOLUTIONS:
        run = sus.run(deck, ranks=ranks, timeout=1800,
                      sets=[f"grid.level.resolution=[{n},{n},{n}]", "grid.level.patches=[2,2,2]",
                            f"time.max_time={FINAL_TIME}"])
        if run.returncode != 0 or "L2 error" not in run.analysis:
            print(run.describe())
            sys.exit(1)
        l2 = run.analysis["L2 error"]
        order = math.log2(errors[-1] / l2) if errors else float("nan")
        errors.append(l2)
        print(f"{n:>6}^3 {run.timesteps:>6} {l2:>12.4e} {run.analysis['max error']:>12.4e} {order:>9.3f}")
    monotone = all(a > b for a, b in zip(errors, errors[1:]))
    finest_order = math.log2(errors[-2] / errors[-1])
    passed = monotone and finest_order >= MIN_ORDER
    print(f"monotone: {monotone}; observed order on the finest pair {finest_order:.3f} (need >= {MIN_ORDER})")
    print(f"{1 if passed else 0} passed, {0 if passed else 1} failed")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
