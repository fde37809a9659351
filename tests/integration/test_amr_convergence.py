"""The composite solution of a refined grid against the exact solution
(docs/amr.md, "Verification"): the error over each level's cells that no
finer level covers, weighted by cell volume (the L2 and max errors sus
reports).

- Burgers with a level 1 over its fronts (the corner [0, 0.625)^3, where
  the fronts of every axis meet the large values of the other two): the
  composite error beside the uniform coarse and uniform fine grids' errors.
  It must lie far nearer the fine grid's (its L2 error within 1.25x of the
  fine grid's, its max error at most the fine grid's times 1.05) on a third
  of the fine grid's cells;
- the observed order of the composite L2 error when both levels are
  refined (the level 0 resolution doubled, the region the same part of the
  domain): Burgers (first-order upwind) about 1, at least 0.8 on the finest
  pair, subcycled too (amr.subcycle: level 1 takes two steps per step of
  level 0), within 5 % of lockstep's error; the heat stencil with r = 1 and a level 1 over the middle half
  (second order in space, forward Euler at dt ~ h^2) about 2, at least 1.8.

Prints both tables.

usage: test_amr_convergence.py --sus S --mpirun M [--mpirun-flag F]... BURGERS_DECK HEAT_DECK [RANKS]
"""
import math
import sys

from sus_runner import Checks, Sus, parse_common_args


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    sus, burgers, heat = Sus(sus_path, mpirun, flags), rest[0], rest[1]
    ranks = int(rest[2]) if len(rest) > 2 else 2
    check = Checks()

    def run(deck, sets):
        result = sus.run(deck, ranks, sets)
        if result.returncode != 0 or "L2 error" not in result.analysis:
            check(f"{sets} runs", False, result.describe())
            check.finish()
        return result

    def fronts(n):
        return [f"grid.level.resolution=[{n},{n},{n}]", "amr.max_levels=2",
                f"amr.regions.fronts={{level: 1, low: [0, 0, 0], high: [{5 * n // 8}, {5 * n // 8}, {5 * n // 8}]}}"]

    n = 32
    cases = {"uniform coarse": ([f"grid.level.resolution=[{n},{n},{n}]"], n ** 3),
             "uniform fine": ([f"grid.level.resolution=[{2 * n},{2 * n},{2 * n}]"], 8 * n ** 3),
             "composite": (fronts(n), n ** 3 - (5 * n // 8) ** 3 + 8 * (5 * n // 8) ** 3)}
    print(f"Burgers to t = 0.05 on {ranks} rank(s), level 0 {n}^3, level 1 over [0, 0.625)^3")
    print(f"{'grid':<16} {'cells':>8} {'steps':>6} {'L2 error':>12} {'max error':>12}")
    errors = {}
    for name, (sets, cells) in cases.items():
        result = run(burgers, sets)
        errors[name] = (result.analysis["L2 error"], result.analysis["max error"])
        print(f"{name:<16} {cells:>8} {result.timesteps:>6} {errors[name][0]:>12.4e} {errors[name][1]:>12.4e}")
    coarse, fine, composite = errors["uniform coarse"], errors["uniform fine"], errors["composite"]
    check("Burgers: the composite error is the fine grid's (L2 within 1.25x, max within 1.05x) "
          "and below the coarse grid's", composite[0] <= 1.25 * fine[0] and composite[1] <= 1.05 * fine[1]
          and composite[0] < coarse[0], str(errors))

    def orders(title, deck, sizes, sets_of, minimum):
        print(title)
        print(f"{'level 0':>8} {'steps':>6} {'L2 error':>12} {'max error':>12} {'L2 order':>9}")
        found = []
        for size in sizes:
            result = run(deck, sets_of(size))
            found.append(result.analysis["L2 error"])
            order = math.log2(found[-2] / found[-1]) if len(found) > 1 else float("nan")
            print(f"{size:>6}^3 {result.timesteps:>6} {found[-1]:>12.4e} "
                  f"{result.analysis['max error']:>12.4e} {order:>9.3f}")
        finest = math.log2(found[-2] / found[-1])
        check(f"{title.split(':')[0]}: the composite L2 error falls, observed order {finest:.3f} on the "
              f"finest pair (at least {minimum})",
              all(a > b for a, b in zip(found, found[1:])) and finest >= minimum, str(found))

    orders("Burgers: composite order, both levels refined (level 1 over [0, 0.625)^3)", burgers,
           [16, 32, 64], fronts, 0.8)
    orders("Burgers subcycled: composite order, both levels refined (level 1 over [0, 0.625)^3)",
           burgers, [16, 32, 64], lambda size: [*fronts(size), "amr.subcycle=true"], 0.8)
    subcycled = run(burgers, [*fronts(n), "amr.subcycle=true"])
    lockstep_l2, subcycled_l2 = composite[0], subcycled.analysis["L2 error"]
    check(f"Burgers subcycled and lockstep agree to the order of the scheme (L2 {subcycled_l2:.4e} "
          f"against {lockstep_l2:.4e}, within 5 %)", abs(subcycled_l2 / lockstep_l2 - 1) < 0.05)
    orders("heat r = 1: composite order, both levels refined (level 1 over the middle half)", heat,
           [8, 16, 32],
           lambda size: [f"grid.level.resolution=[{size},{size},{size}]", "amr.max_levels=2",
                         f"amr.regions.middle={{level: 1, low: [{size // 4}, {size // 4}, {size // 4}], "
                         f"high: [{3 * size // 4}, {3 * size // 4}, {3 * size // 4}]}}"], 1.8)
    check.finish()


if __name__ == "__main__":
    main()
