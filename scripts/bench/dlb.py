#!/usr/bin/python3
"""Dynamic load balancing against the static placement (docs/load-balancing.md):
Task Bench with load imbalance (inputs/TaskBench/imbalanced.yaml: 16 patches
whose work differs up to 5x, the static placement leaving the busier of 2
ranks 32 % above the mean), in the async mode, for 2 ranks (each bound to
its own core) and 4 ranks on the 2 cores (oversubscribed: there the times
mean little; the table is for the rebalances and the patches moved), median
and best of --runs interleaved rounds:

  - static: the space-filling curve's placement by cells, never changed
    (the dynamic check's interval beyond the run);
  - dynamic: the deck's balancing (a check every 5 timesteps, a rebalance
    above 10 % measured imbalance), the curve cut by forecast cost;
  - dynamic, knapsack: the same with AMReX's knapsack placement (heaviest
    patch first onto the least loaded rank: not contiguous on the curve).

From each run's record: the time loop's wall time; the balanced lower bound,
the time all ranks spent inside tasks divided by the ranks (a perfect
placement's time with free messages and migrations); wall / bound (issue
29's goal: dynamic within 1.1x); the measured imbalance; the rebalances and
the patches moved. Writes dlb.json and dlb.png. A benchmark: it asserts
nothing.

With --workload burgers: Burgers' fronts refined by tagged levels that
regrid every 4 timesteps (amr_regrid.py's 3-level case, to t = 0.1) on 2
ranks: static (each regrid places the new grid by cells), and balanced
dynamically every 2 timesteps; writes dlb_burgers.json and .png.

usage: scripts/bench/dlb.py [--build build] [--runs 5] [--steps 300] [--workload taskbench|burgers] [--out bench-results]
"""
import json
import statistics
import sys
import tempfile

from benchlib import ROOT, grouped_bar_chart, parser, run_sus_recorded, write_results

WORKLOADS = {
    "taskbench": {
        "deck": ROOT / "inputs" / "TaskBench" / "imbalanced.yaml",
        "sets": [],
        "cases": {
            "static": ["load_balancer.dynamic.interval=100000000"],
            "dynamic": [],
            "dynamic, knapsack": ["load_balancer.dynamic.strategy=knapsack"],
        },
        "ranks": (2, 4),
        "steps": True,
    },
    # Burgers' fronts refined by tagged levels that regrid every 4 steps
    # (amr_regrid.py's 3-level case): each regrid places the new grid by
    # cells; the balancer then places it by measured cost.
    "burgers": {
        "deck": ROOT / "inputs" / "Burgers" / "burgers.yaml",
        "sets": ["time.max_time=0.1", "grid.level.resolution=[32,32,32]", "grid.level.patches=[2,2,2]",
                 "amr.max_levels=3", "amr.max_patch_size=16", "burgers.refine_threshold=0.02",
                 "amr.regrid_interval=4", "amr.buffer=2"],
        "cases": {
            "static": [],
            "dynamic": ["load_balancer.dynamic.interval=2"],
            "dynamic, knapsack": ["load_balancer.dynamic.interval=2",
                                  "load_balancer.dynamic.strategy=knapsack"],
        },
        "ranks": (2,),
        "steps": False,
    },
}


def run_sus(args, case, ranks, scratch):
    workload = WORKLOADS[args.workload]
    options = ["--scheduler", "async"]
    if workload["steps"]:
        options += ["--max-timesteps", str(args.steps)]
    result, _ = run_sus_recorded(args.build, ranks, options,
                                 [*workload["sets"], *workload["cases"][case]], workload["deck"],
                                 scratch, bind="core" if ranks <= 2 else "none")
    wall = result["wall_seconds"]["time_loop"]
    balance = result["load_balance"]
    bound = sum(balance["task_seconds"]) / ranks
    return {"wall": wall, "bound": bound, "ratio": wall / bound, "imbalance": balance["imbalance"],
            "rebalances": balance["rebalances"], "moved": balance["patches_moved"],
            "digest": result["digests"]}


def chart(summary, path):
    rows = summary["rows"]
    return grouped_bar_chart(
        path, [f"{r['ranks']} ranks" for r in rows],
        [(case, [r[case]["ratio"]["median"] for r in rows]) for case in summary["cases"]],
        "time loop / balanced lower bound (median)",
        f"{summary['workload']}: static and dynamic placement", figsize=(6, 4))


def main():
    options = parser(__doc__)
    options.add_argument("--steps", type=int, default=300)
    options.add_argument("--workload", choices=sorted(WORKLOADS), default="taskbench")
    args = options.parse_args()
    cases = WORKLOADS[args.workload]["cases"]
    rank_counts = WORKLOADS[args.workload]["ranks"]
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    args.build = args.build.resolve()
    configs = [(case, ranks) for ranks in rank_counts for case in cases]
    results = {config: [] for config in configs}
    with tempfile.TemporaryDirectory(prefix="tessera-dlb-") as scratch:
        for round_ in range(args.runs):
            for config in configs if round_ % 2 == 0 else list(reversed(configs)):
                results[config].append(run_sus(args, *config, scratch))
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
    digests = {json.dumps(r["digest"], sort_keys=True) for runs in results.values() for r in runs}
    rows = []
    print(f"\nevery run ended on the same digests: {len(digests) == 1}")
    print("\n| ranks | placement | time loop (s) | balanced lower bound (s) | time / bound "
          "| measured imbalance | rebalances | patches moved |")
    print("|---|---|---|---|---|---|---|---|")
    for ranks in rank_counts:
        row = {"ranks": ranks}
        for case in cases:
            runs = results[(case, ranks)]
            entry = {}
            for key, pick in (("wall", min), ("bound", min), ("ratio", min), ("imbalance", min),
                              ("rebalances", max), ("moved", max)):
                samples = [r[key] for r in runs]
                entry[key] = {"median": statistics.median(samples), "best": pick(samples),
                              "samples": samples}
            row[case] = entry
            print(f"| {ranks} | {case} | {entry['wall']['median']:.4g} ({entry['wall']['best']:.4g}) "
                  f"| {entry['bound']['median']:.4g} | {entry['ratio']['median']:.3f} "
                  f"({entry['ratio']['best']:.3f}) | {100 * entry['imbalance']['median']:.1f} % "
                  f"| {entry['rebalances']['median']:g} | {entry['moved']['median']:g} |")
        for case in [c for c in cases if c != "static"]:
            row[f"{case} / static"] = row[case]["wall"]["median"] / row["static"]["wall"]["median"]
            print(f"| {ranks} | {case} / static time | {row[f'{case} / static']:.3f} | | | | | |")
        rows.append(row)
    name = "dlb" if args.workload == "taskbench" else f"dlb_{args.workload}"
    write_results(args.out, name, {"workload": args.workload, "cases": list(cases), "steps": args.steps,
                                   "runs": args.runs, "same_digests": len(digests) == 1, "rows": rows},
                  chart)


if __name__ == "__main__":
    main()
