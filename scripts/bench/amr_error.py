#!/usr/bin/python3
"""What refinement buys (docs/amr.md, issue 28): the wall time Burgers
needs to reach the uniform fine grid's error with a fixed fine region, to
t = 0.05, for 1 and 2 ranks (each on one core), in the async mode, median
and best of --runs interleaved rounds:

  - uniform coarse: 64^3 (4^3 patches);
  - uniform fine: 128^3 (4^3 patches);
  - composite: 64^3 and a level 1 over the corner [0, 0.625)^3 where the
    fronts meet the large values (40^3 coarse cells refined, in 3^3
    patches: 34 % of the fine grid's cells in all).

Reports each run's time loop (sus's "wall time") and its L2 and max errors
against the exact solution (the composite solution's, docs/amr.md
"Verification"); the ratio composite / uniform fine of the wall times is
what the refined run costs for the fine grid's error. Writes amr_error.json
and amr_error.png. A benchmark: it asserts nothing.

usage: scripts/bench/amr_error.py [--build build] [--runs 5] [--out bench-results]
"""
import re
import statistics
import sys

from benchlib import ROOT, grouped_bar_chart, parser, run_sus_one_core, write_results

DECK = ROOT / "inputs" / "Burgers" / "burgers.yaml"
CASES = {
    "uniform coarse": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]"],
    "uniform fine": ["grid.level.resolution=[128,128,128]", "grid.level.patches=[4,4,4]"],
    "composite": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]", "amr.max_levels=2",
                  "amr.max_patch_size=32", "amr.regions.fronts={level: 1, low: [0, 0, 0], high: [40, 40, 40]}"],
}


def run_sus(args, case, ranks):
    stdout = run_sus_one_core(args.build, ranks, ["--scheduler", "async"], CASES[case], DECK)
    wall = re.search(r"wall time ([0-9.e+-]+) s", stdout)
    l2 = re.search(r"^L2 error: (\S+)$", stdout, re.M)
    largest = re.search(r"^max error: (\S+)$", stdout, re.M)
    if not (wall and l2 and largest):
        sys.exit(f"no wall time or errors in sus's output:\n{stdout}")
    return float(wall.group(1)), float(l2.group(1)), float(largest.group(1))


def chart(summary, path):
    rows = summary["rows"]
    return grouped_bar_chart(
        path, [f"{r['ranks']} rank(s)" for r in rows],
        [(f"{case} (L2 error {rows[0][case]['l2']:.3g})", [r[case]["median"] for r in rows])
         for case in CASES],
        "time loop, seconds (median)",
        "Burgers to t = 0.05: the fine grid's error, refined where it matters", figsize=(7, 4))


def main():
    args = parser(__doc__).parse_args()
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    args.build = args.build.resolve()
    configs = [(case, ranks) for ranks in (1, 2) for case in CASES]
    results = {config: [] for config in configs}
    for round_ in range(args.runs):
        for config in configs if round_ % 2 == 0 else list(reversed(configs)):
            results[config].append(run_sus(args, *config))
        print(f"round {round_ + 1}/{args.runs} done", flush=True)
    rows = []
    print("\n| ranks | grid | time loop (s), median (best) | L2 error | max error |")
    print("|---|---|---|---|---|")
    for ranks in (1, 2):
        row = {"ranks": ranks}
        for case in CASES:
            samples = [wall for wall, _, _ in results[(case, ranks)]]
            _, l2, largest = results[(case, ranks)][0]
            row[case] = {"median": statistics.median(samples), "best": min(samples), "samples": samples,
                         "l2": l2, "max": largest}
            print(f"| {ranks} | {case} | {row[case]['median']:.4g} ({row[case]['best']:.4g}) "
                  f"| {l2:.4e} | {largest:.4e} |")
        row["composite / uniform fine"] = row["composite"]["median"] / row["uniform fine"]["median"]
        print(f"| {ranks} | composite / uniform fine | {row['composite / uniform fine']:.3f} | | |")
        rows.append(row)
    write_results(args.out, "amr_error", {"runs": args.runs, "rows": rows}, chart)


if __name__ == "__main__":
    main()
