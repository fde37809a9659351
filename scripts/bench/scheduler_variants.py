#!/usr/bin/python3
"""Reproduces the seed paper's scheduler comparison (host.sync, acc.sync,
acc.async; Table III) on this machine with the Burgers deck.

For each patch shape, rank count and (on 2 ranks) load balancer (SFC, and
round robin, which puts every neighbour on the other rank: the most
communication to hide) it runs sus in the three modes, interleaved, and
reports the async improvement (T_sync - T_async) / T_async and how far the
slowest mode is from the fastest. Writes a JSON file and, when matplotlib
is available (Debian: python3-matplotlib), a PNG chart.

T is the steady time per timestep: each run's median of the per-timestep
wall_seconds in `sus --stats` (rank 0), then the median over --runs runs.
This machine is shared: a run's whole-loop time swings by 30-50 % with the
neighbours' load (whole steps of 5-18 ms among steps of 2-3 ms), which no
scheduler causes and 5 runs cannot average away; the median step of a run
is what the scheduler costs, and the whole-loop time (ms per timestep as
sus prints it) is reported beside it. The JSON also gives the noise floor:
for each mode the spread (max/min - 1) of its runs' steady times.

usage: scripts/bench/scheduler_variants.py [--runs 5] [--ranks 1,2] [--steps 100]
       [--resolution 128] [--shapes 16x16x64,32x32x32] [--out bench-results]
A benchmark, not a test: it asserts nothing about time.
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

from benchlib import mpirun, parser, pyplot

MODES = ["host", "sync", "async"]
PAPER_NAMES = {"host": "host.sync", "sync": "acc.sync", "async": "acc.async"}
# Patch shapes like the paper's Table III, scaled to a 128^3 level.
PATCH_SHAPES = [(16, 16, 64), (32, 32, 32), (32, 32, 64), (64, 64, 64), (64, 64, 128)]


def run_once(args, scratch, mode, ranks, threads, layout, balancer):
    """(steady ms per step, whole-loop ms per step, overlap %, digest) of one run."""
    stats = pathlib.Path(scratch) / f"stats-{mode}-{ranks}.jsonl"
    cmd = mpirun(ranks) + [
        str(args.build / "StandAlone" / "sus"), "--quiet", "--scheduler", mode,
        "--nthreads", str(threads), "--max-timesteps", str(args.steps), "--stats", str(stats),
        "--set", f"grid.level.resolution=[{args.resolution},{args.resolution},{args.resolution}]",
        "--set", "grid.level.patches=[{},{},{}]".format(*layout),
        "--set", f"load_balancer.type={balancer}", str(args.deck)]
    env = dict(os.environ, OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    walls = [json.loads(line)["wall_seconds"] for line in stats.read_text().splitlines()
             if line.strip()]
    stats.unlink()
    if len(walls) != args.steps:
        sys.exit(f"{' '.join(cmd)}: {len(walls)} timesteps in its statistics, expected {args.steps}")
    loop = float(re.search(r"([0-9.]+) ms per timestep", done.stdout).group(1))
    overlap = float(re.search(r"overlapped with device work ([0-9.]+) %", done.stdout).group(1))
    digest = re.search(r"^digest u (\w+)", done.stdout, re.M).group(1)
    return 1e3 * statistics.median(walls), loop, overlap, digest


def measure(args, scratch, ranks, threads, balancer, shape):
    """One case: --runs runs of each mode, interleaved (one of each in turn)."""
    layout = tuple(args.resolution // s for s in shape)
    row = {"ranks": ranks, "device_threads": threads, "patch": "x".join(map(str, shape)),
           "balancer": balancer, "layout": layout, "cells": args.resolution ** 3}
    samples = {mode: [] for mode in MODES}
    for _ in range(args.runs):
        for mode in MODES:
            samples[mode].append(run_once(args, scratch, mode, ranks, threads, layout, balancer))
    digests = set()
    for mode in MODES:
        steady = [s[0] for s in samples[mode]]
        row[f"{mode}_ms_per_step"] = statistics.median(steady)
        row[f"{mode}_ms_samples"] = steady
        row[f"{mode}_spread_percent"] = 100.0 * (max(steady) / min(steady) - 1.0)
        row[f"{mode}_loop_ms_per_step"] = statistics.median(s[1] for s in samples[mode])
        row[f"{mode}_loop_ms_samples"] = [s[1] for s in samples[mode]]
        row[f"{mode}_overlap_percent"] = statistics.median(s[2] for s in samples[mode])
        digests.update(s[3] for s in samples[mode])
    row["digests_identical"] = len(digests) == 1
    row["async_improvement_percent"] = 100.0 * (row["sync_ms_per_step"] - row["async_ms_per_step"]) \
        / row["async_ms_per_step"]
    fastest = min(row[f"{m}_ms_per_step"] for m in MODES)
    row["fastest_mode"] = min(MODES, key=lambda m: row[f"{m}_ms_per_step"])
    row["slowest_over_fastest_percent"] = 100.0 * (
        max(row[f"{m}_ms_per_step"] for m in MODES) / fastest - 1.0)
    return row


def main():
    arguments = parser(__doc__)
    arguments.add_argument("--ranks", default="1,2")
    arguments.add_argument("--steps", type=int, default=100)
    arguments.add_argument("--resolution", type=int, default=128)
    arguments.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in PATCH_SHAPES),
                           help="patch shapes, e.g. 16x16x64,32x32x32")
    args = arguments.parse_args()
    shapes = [tuple(int(n) for n in shape.split("x")) for shape in args.shapes.split(",")]
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    results = []
    with tempfile.TemporaryDirectory(prefix="tessera-variants-bench-") as scratch:
        for ranks in [int(r) for r in args.ranks.split(",")]:
            threads = max(1, cores // ranks)
            # Round-robin balancing scatters the patches: every neighbour is on
            # the other rank, the most communication there is to hide.
            for balancer in (["sfc", "round_robin"] if ranks > 1 else ["sfc"]):
                for shape in shapes:
                    row = measure(args, scratch, ranks, threads, balancer, shape)
                    results.append(row)
                    print(f"ranks {ranks} {balancer:>11} patch {row['patch']:>10}: " +
                          "  ".join(f"{PAPER_NAMES[m]} {row[f'{m}_ms_per_step']:6.3f} ms "
                                    f"(loop {row[f'{m}_loop_ms_per_step']:6.2f})" for m in MODES) +
                          f"  async improvement {row['async_improvement_percent']:+6.1f} %"
                          f"  slowest/fastest {row['slowest_over_fastest_percent']:+5.1f} %"
                          f"  overlap {row['async_overlap_percent']:.0f} %"
                          f"  digests {'identical' if row['digests_identical'] else 'DIFFER'}",
                          flush=True)
    summary = {"machine_cores": cores, "runs": args.runs, "steps": args.steps,
               "statistic": "median over runs of each run's median per-timestep wall_seconds "
                            "(sus --stats, rank 0); loop_*: sus's whole-loop ms per timestep",
               "results": results}
    for ranks in sorted({r["ranks"] for r in results}):
        for balancer in sorted({r["balancer"] for r in results if r["ranks"] == ranks}):
            rows = [r for r in results if r["ranks"] == ranks and r["balancer"] == balancer]
            gains = [r["async_improvement_percent"] for r in rows]
            key = f"{ranks}_ranks_{balancer}"
            summary[f"mean_async_improvement_percent_{key}"] = statistics.mean(gains)
            summary[f"max_async_improvement_percent_{key}"] = max(gains)
            summary[f"worst_slowest_over_fastest_percent_{key}"] = max(
                r["slowest_over_fastest_percent"] for r in rows)
    (out / "scheduler_variants.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k != "results"}, indent=2))
    plt = pyplot()
    if plt is None:
        return
    rank_counts = sorted({r["ranks"] for r in results})
    fig, axes = plt.subplots(1, len(rank_counts), figsize=(6 * len(rank_counts), 4.5), squeeze=False)
    for ax, ranks in zip(axes[0], rank_counts):
        rows = [r for r in results if r["ranks"] == ranks]
        xs = range(len(rows))
        width = 0.27
        for offset, mode in zip((-width, 0, width), MODES):
            ax.bar([x + offset for x in xs], [r[f"{mode}_ms_per_step"] for r in rows], width,
                   label=PAPER_NAMES[mode])
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["patch"] + ("" if r["balancer"] == "sfc" else "\nround robin") for r in rows],
                           rotation=20, fontsize=8)
        ax.set_xlabel("patch size (128^3 cells)")
        ax.set_ylabel("ms per timestep (median step, median of runs)")
        ax.set_title(f"Burgers, {ranks} rank(s) x {rows[0]['device_threads']} device thread(s)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "scheduler_variants.png", dpi=120)
    print(f"wrote {out / 'scheduler_variants.json'} and {out / 'scheduler_variants.png'}")


if __name__ == "__main__":
    main()
