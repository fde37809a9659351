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
import os
import re
import statistics
import subprocess
import sys

from benchlib import ROOT, bar_positions, mpirun, parser, pyplot, write_results

DECK = ROOT / "inputs" / "Burgers" / "burgers.yaml"
CASES = {
    "uniform coarse": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]"],
    "uniform fine": ["grid.level.resolution=[128,128,128]", "grid.level.patches=[4,4,4]"],
    "composite": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]", "amr.max_levels=2",
                  "amr.max_patch_size=32", "amr.regions.fronts={level: 1, low: [0, 0, 0], high: [40, 40, 40]}"],
}


def run_sus(args, case, ranks):
    cmd = mpirun(ranks, bind="core") + [str(args.build / "StandAlone" / "sus"), "--quiet",
                                       "--scheduler", "async", "--nthreads", "1"]
    for assignment in CASES[case]:
        cmd += ["--set", assignment]
    cmd.append(str(DECK))
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    wall = re.search(r"wall time ([0-9.e+-]+) s", done.stdout)
    l2 = re.search(r"^L2 error: (\S+)$", done.stdout, re.M)
    largest = re.search(r"^max error: (\S+)$", done.stdout, re.M)
    if done.returncode != 0 or not (wall and l2 and largest):
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return float(wall.group(1)), float(l2.group(1)), float(largest.group(1))


def chart(summary, path):
    plt = pyplot()
    if plt is None:
        return False
    rows = summary["rows"]
    fig, ax = plt.subplots(figsize=(7, 4))
    for index, case in enumerate(CASES):
        ax.bar(bar_positions(len(rows), len(CASES), index, 0.25),
               [r[case]["median"] for r in rows], 0.25,
               label=f"{case} (L2 error {rows[0][case]['l2']:.3g})")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['ranks']} rank(s)" for r in rows])
    ax.set_ylabel("time loop, seconds (median)")
    ax.set_title("Burgers to t = 0.05: the fine grid's error, refined where it matters")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


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
