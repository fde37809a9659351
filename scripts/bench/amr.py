#!/usr/bin/python3
"""The cost of refinement (docs/amr.md): Burgers on two levels against one,
in cell updates per second over all levels (sus's rate counts every level's
cells), for 1 and 2 ranks (each on one core) and every scheduler mode,
median and best of --runs interleaved rounds:

  - two levels: level 0 of 64^3 cells in 4^3 patches and a level 1 (ratio
    2) over its middle half along each axis (64^3 more cells, patches of
    16^3): 524288 cells in 128 patches of 16^3;
  - uniform, same cells: one level of 64 x 64 x 128 cells in 4 x 4 x 8
    patches, the same 524288 cells in 128 patches of 16^3, so the same
    memory and the same per-patch work: what the two-level run costs on top
    of it is the refinement itself (the coarse-fine ghost cells gathered
    and refined, the averaging onto level 0);
  - uniform 64^3: level 0 alone, half the cells (shown for reference: its
    arrays are half the size, so more of them stay in cache).

The ratio two levels / uniform (same cells) is the cost per cell update of
a single level over the refined run's (issue 28's goal: within 1.15x, i.e.
a ratio of at least 1 / 1.15 = 0.87). Every run takes the same --steps
(the finer level's step is half the coarse one's, and the uniform runs are
given the same --max-timesteps); the default of 100 keeps the first steps'
warm-up (allocations, first touches) from weighing on a rate that a real run
spends thousands of steps at. Writes amr.json and amr.png. A benchmark: it
asserts nothing.

usage: scripts/bench/amr.py [--suite levels|swirl] [--build build] [--runs 5] [--steps 100] [--out bench-results]
(--suite swirl: the swirl and Burgers subcycled against the uniform finest
grid, scripts/bench/amr_swirl.py, with its own options)
"""
import re
import statistics
import sys

from benchlib import ROOT, grouped_bar_chart, parser, run_sus_one_core, write_results

DECK = ROOT / "inputs" / "Burgers" / "burgers.yaml"
MODES = ["host", "sync", "async"]
CASES = {
    "uniform 64^3": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]"],
    "uniform, same cells": ["grid.level.resolution=[64,64,128]", "grid.level.patches=[4,4,8]"],
    "two levels": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]",
                   "amr.max_levels=2", "amr.max_patch_size=16",
                   "amr.regions.middle={level: 1, low: [16, 16, 16], high: [48, 48, 48]}"],
}
REFERENCE = "uniform, same cells"


def run_sus(args, case, mode, ranks):
    stdout = run_sus_one_core(args.build, ranks,
                              ["--scheduler", mode, "--max-timesteps", str(args.steps)],
                              ["time.max_time=10", *CASES[case]], DECK)
    rate = re.search(r"([0-9.e+-]+) cell updates per second", stdout)
    if not rate:
        sys.exit(f"no rate in sus's output:\n{stdout}")
    return float(rate.group(1))


def chart(summary, path):
    rows = summary["rows"]
    return grouped_bar_chart(
        path, [f"{r['mode']}\n{r['ranks']} rank(s)" for r in rows],
        [(case, [r[case]["median"] for r in rows]) for case in CASES],
        "cell updates per second (all levels)",
        "Burgers: two levels against one (median of interleaved runs)", figsize=(9, 4))


def main():
    # --suite swirl: subcycled refinement against the uniform finest grid
    # (the swirl and Burgers; scripts/bench/amr_swirl.py).
    if "--suite" in sys.argv:
        at = sys.argv.index("--suite")
        suite = sys.argv[at + 1] if at + 1 < len(sys.argv) else ""
        rest = sys.argv[1:at] + sys.argv[at + 2:]
        if suite == "swirl":
            import amr_swirl
            amr_swirl.main(rest)
            return
        if suite != "levels":
            sys.exit("--suite: levels (the default) or swirl")
        sys.argv = [sys.argv[0], *rest]
    options = parser(__doc__)
    options.add_argument("--steps", type=int, default=100)
    args = options.parse_args()
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    args.build = args.build.resolve()
    configs = [(case, mode, ranks) for ranks in (1, 2) for mode in MODES for case in CASES]
    rates = {config: [] for config in configs}
    for round_ in range(args.runs):
        order = configs if round_ % 2 == 0 else list(reversed(configs))
        for config in order:
            rate = run_sus(args, *config)
            rates[config].append(rate)
        print(f"round {round_ + 1}/{args.runs} done", flush=True)
    rows = []
    print("\n| ranks | mode | uniform 64^3 (cell updates/s) | uniform, same cells | two levels "
          "| two levels / uniform (same cells) | two levels / uniform 64^3 |")
    print("|---|---|---|---|---|---|---|")
    for ranks in (1, 2):
        for mode in MODES:
            row = {"ranks": ranks, "mode": mode}
            for case in CASES:
                samples = rates[(case, mode, ranks)]
                row[case] = {"median": statistics.median(samples), "best": max(samples),
                             "samples": samples}
            row["ratio"] = row["two levels"]["median"] / row[REFERENCE]["median"]
            row["ratio_best"] = row["two levels"]["best"] / row[REFERENCE]["best"]
            row["ratio_half_size"] = row["two levels"]["median"] / row["uniform 64^3"]["median"]
            rows.append(row)
            cells = " | ".join(f"{row[case]['median']:.4g} (best {row[case]['best']:.4g})"
                               for case in CASES)
            print(f"| {ranks} | {mode} | {cells} | {row['ratio']:.3f} (best {row['ratio_best']:.3f}) "
                  f"| {row['ratio_half_size']:.3f} |")
    write_results(args.out, "amr", {"steps": args.steps, "runs": args.runs, "rows": rows}, chart)


if __name__ == "__main__":
    main()
