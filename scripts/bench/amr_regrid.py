#!/usr/bin/python3
"""Levels that follow the solution (docs/amr.md, "Regridding"; issue 29):
Burgers with its fronts refined by tagged levels that regrid as they move,
against the uniform grid at the finest resolution, in the async mode, for 1
and 2 ranks (each on one core), median and best of --runs interleaved
rounds:

  - 2 levels: level 0 of 32^3 cells (2^3 patches) and up to one tagged level
    (ratio 2, patches of 16^3, tags where u jumps by more than
    --threshold2 to a neighbour), regridded every 4 timesteps, against the
    uniform 64^3 (4^3 patches);
  - 3 levels: the same with up to two tagged levels (--threshold3), against
    the uniform 128^3 (8^3 patches of 16^3).

For each: the time loop's wall time, the L2 and max errors against the exact
solution (the composite solution's), and the cell updates (all levels, all
timesteps). The issue's goals: an error within 1.1x the uniform grid's, with
at most 35 % of its cell updates and at most 0.5x its wall time. One more
run of each refined case, without --quiet, gives the regrids' costs from its
log (tagging, clustering, transfer, compile) against its timesteps' median
wall time: a regrid is to cost at most 2 timesteps. Writes amr_regrid.json
and amr_regrid.png. A benchmark: it asserts nothing.

With --subcycle the refined runs subcycle (amr.subcycle): a timestep is a
step of level 0, and a regrid is weighed against it.

usage: scripts/bench/amr_regrid.py [--build build] [--runs 5] [--subcycle] [--out bench-results]
"""
import json
import os
import re
import statistics
import sys
import tempfile

from benchlib import ROOT, grouped_bar_chart, parser, run_sus_recorded, write_results

DECK = ROOT / "inputs" / "Burgers" / "burgers.yaml"
END = "time.max_time=0.1"


def cases(args):
    tagged = ["grid.level.resolution=[32,32,32]", "grid.level.patches=[2,2,2]", "amr.max_patch_size=16",
              "amr.regrid_interval=4", "amr.buffer=2", END,
              f"amr.subcycle={'true' if args.subcycle else 'false'}"]
    return {
        "uniform 64^3": ["grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]", END],
        "2 levels, regridding": [*tagged, "amr.max_levels=2", f"burgers.refine_threshold={args.threshold2}"],
        "uniform 128^3": ["grid.level.resolution=[128,128,128]", "grid.level.patches=[8,8,8]", END],
        "3 levels, regridding": [*tagged, "amr.max_levels=3", f"burgers.refine_threshold={args.threshold3}"],
    }


PAIRS = [("2 levels, regridding", "uniform 64^3"), ("3 levels, regridding", "uniform 128^3")]


def run_sus(args, sets, ranks, scratch, quiet=True):
    stats = os.path.join(scratch, "stats.jsonl")
    result, done = run_sus_recorded(args.build, ranks, ["--scheduler", "async", "--stats", stats], sets,
                                    DECK, scratch, quiet=quiet)
    with open(stats) as f:
        steps = [json.loads(line)["wall_seconds"] for line in f if line.strip()]
    os.remove(stats)
    wall = result["wall_seconds"]["time_loop"]
    return {"wall": wall, "updates": result["cell_updates_per_second"] * wall,
            "l2": result["analysis"]["L2 error"], "max": result["analysis"]["max error"],
            "regrids": result.get("levels", {}).get("regrids", {}), "steps": steps,
            "log": done.stdout + done.stderr}


def regrid_costs(log):
    """Each regrid that changed the levels: (total, tagging, clustering, transfer, compile) in ms."""
    found = re.findall(r"tagging ([0-9.]+) ms, clustering ([0-9.]+) ms, transfer ([0-9.]+) ms .*?"
                       r"compile ([0-9.]+) ms; regrid ([0-9.]+) ms in all", log)
    return [(float(t), float(a), float(c), float(x), float(p)) for a, c, x, p, t in found]


def chart(summary, path):
    rows = summary["rows"]
    names = [name for pair in PAIRS for name in pair]
    return grouped_bar_chart(
        path, [f"{r['ranks']} rank(s)" for r in rows],
        [(f"{name} (L2 {rows[0][name]['l2']:.3g})", [r[name]["wall"]["median"] for r in rows])
         for name in names],
        "time loop, seconds (median)", "Burgers to t = 0.1: levels that follow the fronts",
        figsize=(8, 4))


def main():
    options = parser(__doc__)
    options.add_argument("--threshold2", type=float, default=0.08)
    options.add_argument("--threshold3", type=float, default=0.02)
    options.add_argument("--subcycle", action="store_true",
                         help="the refined runs subcycle (amr.subcycle): a timestep is a step of level 0")
    args = options.parse_args()
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    args.build = args.build.resolve()
    grids = cases(args)
    configs = [(name, ranks) for ranks in (1, 2) for name in grids]
    results = {config: [] for config in configs}
    with tempfile.TemporaryDirectory(prefix="tessera-amr-regrid-") as scratch:
        for round_ in range(args.runs):
            for name, ranks in configs if round_ % 2 == 0 else list(reversed(configs)):
                results[(name, ranks)].append(run_sus(args, grids[name], ranks, scratch))
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
        logged = {(name, ranks): run_sus(args, grids[name], ranks, scratch, quiet=False)
                  for name, _ in PAIRS for ranks in (1, 2)}
    rows = []
    print("\n| ranks | grid | time loop (s), median (best) | cell updates | L2 error | max error |")
    print("|---|---|---|---|---|---|")
    for ranks in (1, 2):
        row = {"ranks": ranks}
        for name in grids:
            runs = results[(name, ranks)]
            walls = [r["wall"] for r in runs]
            row[name] = {"wall": {"median": statistics.median(walls), "best": min(walls), "samples": walls},
                         "updates": runs[0]["updates"], "l2": runs[0]["l2"], "max": runs[0]["max"],
                         "regrids": runs[0]["regrids"]}
            print(f"| {ranks} | {name} | {row[name]['wall']['median']:.4g} ({min(walls):.4g}) "
                  f"| {runs[0]['updates']:.4g} | {runs[0]['l2']:.4e} | {runs[0]['max']:.4e} |")
        for refined, uniform in PAIRS:
            r, u = row[refined], row[uniform]
            ratios = {"l2": r["l2"] / u["l2"], "max": r["max"] / u["max"],
                      "updates": r["updates"] / u["updates"],
                      "wall": r["wall"]["median"] / u["wall"]["median"],
                      "wall_best": r["wall"]["best"] / u["wall"]["best"]}
            log = logged[(refined, ranks)]
            costs = regrid_costs(log["log"])
            step = statistics.median(log["steps"])
            ratios["regrids"] = len(costs)
            ratios["regrid_ms_median"] = statistics.median([c[0] for c in costs]) if costs else None
            ratios["step_ms_median"] = 1e3 * step
            ratios["regrid_in_steps"] = (ratios["regrid_ms_median"] / (1e3 * step)) if costs else None
            ratios["regrid_parts_ms"] = costs
            row[f"{refined} / {uniform}"] = ratios
            in_steps = f"{ratios['regrid_in_steps']:.2f}" if costs else "no regrid changed the levels"
            print(f"| {ranks} | {refined} / {uniform} | wall {ratios['wall']:.3f} (best {ratios['wall_best']:.3f}) "
                  f"| updates {ratios['updates']:.3f} | L2 {ratios['l2']:.3f} | max {ratios['max']:.3f} |")
            median = f"{ratios['regrid_ms_median']:.3g}" if costs else "-"
            print(f"|   |   regrids changing the levels: {len(costs)}, median {median} ms "
                  f"= {in_steps} timesteps of {1e3 * step:.3g} ms | | | | |")
        rows.append(row)
    write_results(args.out, "amr_regrid_subcycled" if args.subcycle else "amr_regrid",
                  {"runs": args.runs, "threshold2": args.threshold2, "threshold3": args.threshold3,
                   "subcycle": args.subcycle, "rows": rows}, chart)


if __name__ == "__main__":
    main()
