#!/usr/bin/python3
"""Subcycled refinement against the uniform finest grid (docs/amr.md,
"Subcycling"; issue 30), in the async mode, for 1 and 2 ranks (each on one
core), median and best of --runs interleaved rounds (scripts/bench/amr.py
--suite swirl runs it):

  - the swirl (inputs/Advection): swirl_amr.yaml (64 x 64 x 8 on level 0,
    three levels of ratio 2, subcycled, refluxed, regridded every 2
    timesteps) to t = 2, against swirl_uniform.yaml (256 x 256 x 32 in 32^3
    patches). The uniform run to t = 2 takes minutes on one core, so each
    round times --portion of its timesteps and the whole is estimated as the
    median timestep (after the first two) times its timesteps to t = 2 (its
    step is fixed: the largest velocity of the run); one whole run per rank
    count, outside the rounds, gives its error at t = 2 and checks the estimate;
  - the cost per cell update: the refined run's wall time over its cell
    updates (every level, every substep, regrids included) against the
    uniform run's per timestep over its cells, with the refined run's patch
    size (16^3: the uniform grid in 16 x 16 x 2 patches);
  - Burgers (inputs/Burgers/burgers.yaml, to t = 0.1): level 0 of 32^3 and
    two tagged levels regridded every 4 timesteps, subcycled (the
    regridding benchmark's deck, scripts/bench/amr_regrid.py), against the
    uniform 128^3 in 16^3 patches; and at twice the resolution, level 0 of
    64^3 and two tagged levels (threshold 0.01, patches of at most 32^3)
    against the uniform 256^3 in 16^3 patches, where the fronts are a
    smaller part of the domain; all whole.

The issue's goals: the swirl's cost per update at most 1.15x; its wall time
at most 0.2x the uniform run's, each with its error at t = 2 beside it;
Burgers within 1.1x the uniform grid's error in at most 0.2x its time.
Writes amr_swirl.json and amr_swirl.png. A benchmark: it asserts nothing.

usage: scripts/bench/amr_swirl.py [--build build] [--runs 5] [--portion 30] [--out bench-results]
"""
import json
import os
import statistics
import sys
import tempfile

from benchlib import ROOT, grouped_bar_chart, parser, run_sus_recorded, write_results

SWIRL_AMR = ROOT / "inputs" / "Advection" / "swirl_amr.yaml"
SWIRL_UNIFORM = ROOT / "inputs" / "Advection" / "swirl_uniform.yaml"
BURGERS = ROOT / "inputs" / "Burgers" / "burgers.yaml"
BURGERS_END = "time.max_time=0.1"
BURGERS_CASES = {
    "Burgers uniform 128^3": ["grid.level.resolution=[128,128,128]", "grid.level.patches=[8,8,8]",
                              BURGERS_END],
    "Burgers 3 levels, subcycled": ["grid.level.resolution=[32,32,32]", "grid.level.patches=[2,2,2]",
                                    "amr.max_patch_size=16", "amr.regrid_interval=4", "amr.buffer=2",
                                    "amr.max_levels=3", "burgers.refine_threshold=0.02",
                                    "amr.subcycle=true", BURGERS_END],
    "Burgers uniform 256^3": ["grid.level.resolution=[256,256,256]", "grid.level.patches=[16,16,16]",
                              BURGERS_END],
    "Burgers 3 levels to 256^3, subcycled": [
        "grid.level.resolution=[64,64,64]", "grid.level.patches=[4,4,4]", "amr.max_patch_size=32",
        "amr.regrid_interval=4", "amr.buffer=2", "amr.max_levels=3", "burgers.refine_threshold=0.01",
        "amr.subcycle=true", BURGERS_END],
}
# (refined, uniform at its finest resolution)
BURGERS_PAIRS = [("Burgers 3 levels, subcycled", "Burgers uniform 128^3"),
                 ("Burgers 3 levels to 256^3, subcycled", "Burgers uniform 256^3")]


def run(args, deck, sets, ranks, scratch, options=()):
    """One run: its record, and its timesteps' (wall seconds, delt) from --stats."""
    stats = os.path.join(scratch, "stats.jsonl")
    record, _ = run_sus_recorded(args.build, ranks, ["--scheduler", "async", "--stats", stats, *options],
                                 sets, deck, scratch)
    with open(stats) as f:
        steps = [json.loads(line) for line in f if line.strip()]
    os.remove(stats)
    wall = record["wall_seconds"]["time_loop"]
    return {"wall": wall, "updates": record["cell_updates_per_second"] * wall,
            "analysis": record["analysis"], "timesteps": len(steps),
            "step_walls": [s["wall_seconds"] for s in steps], "delt": [s["delt"] for s in steps]}


def portion(args, sets, ranks, scratch):
    """The uniform swirl over --portion timesteps: its median timestep (after
    two) and the timesteps a run to t = 2 takes."""
    measured = run(args, SWIRL_UNIFORM, sets, ranks, scratch, ["--max-timesteps", str(args.portion)])
    step = statistics.median(measured["step_walls"][2:])
    delt = measured["delt"][0]
    whole = -(-2.0 // delt)  # the last step is cut short to land on t = 2
    return {"step": step, "timesteps": whole, "estimate": step * whole}


def stats_of(values):
    return {"median": statistics.median(values), "best": min(values), "samples": values}


def chart(summary, path):
    rows = summary["rows"]
    names = ["swirl, 3 levels subcycled", "swirl uniform (estimated)", *BURGERS_CASES]
    return grouped_bar_chart(
        path, [f"{r['ranks']} rank(s)" for r in rows],
        [(name, [r[name]["median"] for r in rows]) for name in names],
        "seconds to the end time (median)", "Subcycled levels against the uniform finest grid",
        figsize=(9, 4))


def main(argv=None):
    options = parser(__doc__)
    options.add_argument("--portion", type=int, default=30)
    args = options.parse_args(argv)
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    args.build = args.build.resolve()
    same_patches = ["grid.level.patches=[16,16,2]"]
    configs = [(kind, ranks) for ranks in (1, 2)
               for kind in ("amr", "uniform", "uniform 16^3", *BURGERS_CASES)]
    samples = {config: [] for config in configs}
    with tempfile.TemporaryDirectory(prefix="tessera-amr-swirl-") as scratch:
        for round_ in range(args.runs):
            for kind, ranks in configs if round_ % 2 == 0 else list(reversed(configs)):
                if kind == "amr":
                    result = run(args, SWIRL_AMR, [], ranks, scratch)
                elif kind == "uniform":
                    result = portion(args, [], ranks, scratch)
                elif kind == "uniform 16^3":
                    result = portion(args, same_patches, ranks, scratch)
                else:
                    result = run(args, BURGERS, BURGERS_CASES[kind], ranks, scratch)
                samples[(kind, ranks)].append(result)
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
        whole = {ranks: run(args, SWIRL_UNIFORM, [], ranks, scratch) for ranks in (1, 2)}

    rows = []
    cells = 256 * 256 * 32
    print("\n| ranks | run | seconds to the end, median (best) | cell updates | L1 | L2 | max error |")
    print("|---|---|---|---|---|---|---|")
    for ranks in (1, 2):
        row = {"ranks": ranks}
        amr = samples[("amr", ranks)]
        row["swirl, 3 levels subcycled"] = stats_of([r["wall"] for r in amr])
        uniform = samples[("uniform", ranks)]
        row["swirl uniform (estimated)"] = stats_of([r["estimate"] for r in uniform])
        row["swirl uniform, whole run"] = {"wall": whole[ranks]["wall"],
                                           "timesteps": whole[ranks]["timesteps"]}
        errors = {"amr": amr[0]["analysis"], "uniform": whole[ranks]["analysis"]}
        row["errors"] = errors
        for name, run_, seconds in (
                ("swirl, 3 levels subcycled", amr[0],
                 f"{row['swirl, 3 levels subcycled']['median']:.4g} ({row['swirl, 3 levels subcycled']['best']:.4g})"),
                ("swirl uniform, one whole run", whole[ranks], f"{whole[ranks]['wall']:.4g}")):
            a = run_["analysis"]
            print(f"| {ranks} | {name} | {seconds} | {run_['updates']:.4g} | {a['L1 error']:.4e} "
                  f"| {a['L2 error']:.4e} | {a['max error']:.4e} |")
        print(f"| {ranks} | swirl uniform, estimated from {args.portion} timesteps | "
              f"{row['swirl uniform (estimated)']['median']:.4g} ({row['swirl uniform (estimated)']['best']:.4g}) "
              f"| {uniform[0]['timesteps'] * cells:.4g} | | | |")
        # Cost per cell update: the refined run's over the uniform run's with 16^3 patches.
        amr_cost = [r["wall"] / r["updates"] for r in amr]
        uniform_cost = [r["step"] / cells for r in samples[("uniform 16^3", ranks)]]
        row["cost per update"] = {"amr": stats_of(amr_cost), "uniform 16^3": stats_of(uniform_cost),
                                  "ratio": statistics.median(amr_cost) / statistics.median(uniform_cost),
                                  "ratio_best": min(amr_cost) / min(uniform_cost)}
        row["wall ratio"] = {"median": row["swirl, 3 levels subcycled"]["median"]
                             / row["swirl uniform (estimated)"]["median"],
                             "best": row["swirl, 3 levels subcycled"]["best"]
                             / row["swirl uniform (estimated)"]["best"]}
        for name in BURGERS_CASES:
            runs = samples[(name, ranks)]
            row[name] = stats_of([r["wall"] for r in runs])
            row[name]["updates"] = runs[0]["updates"]
            row[name]["analysis"] = runs[0]["analysis"]
            print(f"| {ranks} | {name} | {row[name]['median']:.4g} ({row[name]['best']:.4g}) | "
                  f"{runs[0]['updates']:.4g} | | {runs[0]['analysis']['L2 error']:.4e} | "
                  f"{runs[0]['analysis']['max error']:.4e} |")
        row["Burgers ratios"] = {}
        for refined_name, flat_name in BURGERS_PAIRS:
            refined, flat = row[refined_name], row[flat_name]
            row["Burgers ratios"][refined_name] = {
                "wall": refined["median"] / flat["median"], "wall_best": refined["best"] / flat["best"],
                "l2": refined["analysis"]["L2 error"] / flat["analysis"]["L2 error"],
                "updates": refined["updates"] / flat["updates"]}
        cost = row["cost per update"]
        print(f"| {ranks} | swirl: cost per update, refined / uniform 16^3 patches | "
              f"{cost['ratio']:.3f} (best {cost['ratio_best']:.3f}) | | | | |")
        print(f"| {ranks} | swirl: wall to t = 2, refined / uniform | {row['wall ratio']['median']:.3f} "
              f"(best {row['wall ratio']['best']:.3f}) | | L1 {errors['amr']['L1 error'] / errors['uniform']['L1 error']:.3f}x | | |")
        for refined_name, flat_name in BURGERS_PAIRS:
            b = row["Burgers ratios"][refined_name]
            print(f"| {ranks} | {refined_name} / {flat_name[len('Burgers '):]} | wall {b['wall']:.3f} "
                  f"(best {b['wall_best']:.3f}) | updates {b['updates']:.3f} | | L2 {b['l2']:.3f}x | |")
        rows.append(row)
    write_results(args.out, "amr_swirl", {"runs": args.runs, "portion": args.portion, "rows": rows}, chart)


if __name__ == "__main__":
    main()
