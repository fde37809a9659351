#!/usr/bin/python3
"""Task Bench's measurements (Slaughter et al., SC'20) for Tessera's
schedulers, with the TaskBench component (stencil_1d, one task per point
per step, compute-bound busy work per task).

For 1 and 2 ranks (each rank and its threads bound to one core, one device
thread) and every scheduler mode it sweeps the busy work per task, median of
--runs interleaved runs, and reports:
  - task granularity = wall time x cores / tasks (the pattern's tasks);
  - efficiency = FLOP/s / peak FLOP/s, the peak being the best rate any run
    of that rank count reached (the largest tasks);
  - the runtime's overhead per task = the granularity of empty tasks;
  - METG(50 %) = the smallest granularity at which efficiency is still at
    least 50 % (interpolated on a log scale between the measured points).
Writes taskbench.json and taskbench.png. A benchmark: it asserts nothing.

usage: scripts/bench/taskbench.py [--runs 5] [--width 64] [--out bench-results]
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

from benchlib import ROOT, mpirun, parser

MODES = ["host", "sync", "async"]
ITERATIONS = [0, 16, 64, 256, 1024, 4096, 16384, 65536]
FLOPS_PER_ITERATION = 16  # TaskBench::kFlopsPerIteration
DECK = ROOT / "inputs" / "TaskBench" / "stencil_1d.yaml"


def steps_for(iterations, width):
    """About 0.3 s of work per run, at least 20 steps."""
    per_task = 5e-6 + iterations * FLOPS_PER_ITERATION / 4e9
    return max(20, min(2000, int(0.3 / (width * per_task))))


def run_once(build, ranks, mode, iterations, width):
    steps = steps_for(iterations, width)
    cmd = mpirun(ranks, bind="core") + [
        str(build / "StandAlone" / "sus"), "--quiet", "--scheduler", mode, "--nthreads", "1",
        "--max-timesteps", str(steps),
        "--set", f"taskbench.iterations={iterations}",
        "--set", f"grid.level.resolution=[{width},1,1]", "--set", f"grid.level.patches=[{width},1,1]",
        "--set", f"grid.level.upper=[{width}.0,1.0,1.0]", str(DECK)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if done.returncode != 0:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    wall = float(re.search(r"wall time ([0-9.e+-]+) s", done.stdout).group(1))
    tasks = width * steps
    return {"wall": wall, "tasks": tasks, "flops": tasks * iterations * FLOPS_PER_ITERATION}


def metg(points):
    """Smallest granularity with efficiency >= 0.5, interpolated on log granularity."""
    points = sorted(points, key=lambda p: p["granularity_us"])
    for lower, upper in zip(points, points[1:]):
        if lower["efficiency"] < 0.5 <= upper["efficiency"]:
            t = (0.5 - lower["efficiency"]) / (upper["efficiency"] - lower["efficiency"])
            a, b = math.log(lower["granularity_us"]), math.log(upper["granularity_us"])
            return math.exp(a + t * (b - a))
    reached = [p["granularity_us"] for p in points if p["efficiency"] >= 0.5]
    return min(reached) if reached else None


def chart(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found (Debian: python3-matplotlib): no chart")
        return
    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.5), sharey=True)
    for ax, (ranks, by_mode) in zip(axes if len(results) > 1 else [axes], results.items()):
        for mode, data in by_mode.items():
            pts = [p for p in data["points"] if p["iterations"] > 0]
            ax.plot([p["granularity_us"] for p in pts], [100 * p["efficiency"] for p in pts], "o-",
                    label=f"{mode} (METG {data['metg_us']:.1f} us)" if data["metg_us"] else mode)
        ax.axhline(50, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("task granularity (us)")
        ax.set_title(f"stencil_1d, {ranks} rank(s)")
        ax.legend()
    (axes[0] if len(results) > 1 else axes).set_ylabel("efficiency (%)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main():
    args = parser(__doc__).parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    width_arg = 64
    samples = {}
    for _ in range(args.runs):
        for ranks in (1, 2):
            for iterations in ITERATIONS:
                for mode in MODES:
                    samples.setdefault((ranks, mode, iterations), []).append(
                        run_once(args.build, ranks, mode, iterations, width_arg))
    results = {}
    for ranks in (1, 2):
        cores = ranks
        rows = {}
        for mode in MODES:
            points = []
            for iterations in ITERATIONS:
                runs = samples[(ranks, mode, iterations)]
                wall = statistics.median(r["wall"] for r in runs)
                tasks, flops = runs[0]["tasks"], runs[0]["flops"]
                points.append({"iterations": iterations, "tasks": tasks, "wall_seconds": wall,
                               "wall_samples": [r["wall"] for r in runs],
                               "granularity_us": 1e6 * wall * cores / tasks,
                               "flops_per_second": flops / wall})
            rows[mode] = {"points": points}
        peak = max(p["flops_per_second"] for m in rows.values() for p in m["points"])
        for mode, data in rows.items():
            for p in data["points"]:
                p["efficiency"] = p["flops_per_second"] / peak
            data["overhead_us_per_task"] = data["points"][0]["granularity_us"]
            data["metg_us"] = metg([p for p in data["points"] if p["iterations"] > 0])
        results[ranks] = rows
        print(f"{ranks} rank(s), peak {peak:.3g} FLOP/s")
        for mode, data in rows.items():
            metg_text = f"{data['metg_us']:.1f} us" if data["metg_us"] else "not reached"
            print(f"  {mode:>5}: overhead {data['overhead_us_per_task']:.2f} us/task, METG(50%) {metg_text}")
    record = {"pattern": "stencil_1d", "width": width_arg, "runs": args.runs,
              "flops_per_iteration": FLOPS_PER_ITERATION, "iterations": ITERATIONS,
              "results": {str(k): v for k, v in results.items()}}
    (args.out / "taskbench.json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out / 'taskbench.json'}")
    chart(results, args.out / "taskbench.png")


if __name__ == "__main__":
    main()
