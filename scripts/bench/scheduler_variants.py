#!/usr/bin/python3
"""Reproduces the seed paper's scheduler comparison (host.sync, acc.sync,
acc.async; Table III) on this machine with the Burgers deck.

For each patch shape, rank count and (on 2 ranks) load balancer (SFC, and
round robin, which puts every neighbour on the other rank: the most
communication to hide) it compares the three modes within single runs:
`sus --scheduler host,sync,async` runs the timesteps in turn in each mode
(one round = one timestep of each), on one grid, one warehouse and the same
field, so every mode meets the same state of this shared machine. Each
run's rotation order is the next permutation of the three modes (a mode's
cost cannot hide in what the previous step's mode left behind).

Per round it takes each mode's timestep wall time (sus --stats, rank 0) and
the ratios within the round; reported are the medians over the rounds of
all runs (the first round of each run left out, as warm-up):
  - each mode's time relative to host's;
  - the async improvement T_sync / T_async - 1;
  - how far the slowest mode is from the fastest;
and, beside them, each mode's median time per timestep. Whole runs in one
mode, interleaved, cannot resolve 5 % here: a run's time swings by 20-50 %
with the neighbours' load, which no scheduler causes (see
docs/benchmarks.md). The digest of every run must equal that of a plain
host run, which the script makes once per case.

One more case family, "spare core": 1 rank with one device thread and a
core left over, where async's control thread works beside the kernels (the
seed paper's MPE beside its CPE cluster), one task per patch (patch groups
off, as Uintah's tasks are). There the control thread makes the local ghost
copies and runs the host tasks while the kernels run.

Writes a JSON file and, when matplotlib is available (Debian:
python3-matplotlib), a PNG chart.

usage: scripts/bench/scheduler_variants.py [--runs 5] [--ranks 1,2] [--rounds 60]
       [--resolution 128] [--shapes 16x16x64,32x32x32] [--balancers sfc,round_robin]
       [--out bench-results]
A benchmark, not a test: it asserts nothing about time.
"""
import itertools
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


def run_sus(args, scratch, scheduler, ranks, threads, layout, balancer, steps, groups=True):
    """(per-timestep stats lines of rank 0, digest, overlap %) of one run."""
    stats = pathlib.Path(scratch) / "stats.jsonl"
    cmd = mpirun(ranks) + [
        str(args.build / "StandAlone" / "sus"), "--quiet", "--scheduler", scheduler,
        "--nthreads", str(threads), "--max-timesteps", str(steps), "--stats", str(stats),
        "--set", f"grid.level.resolution=[{args.resolution},{args.resolution},{args.resolution}]",
        "--set", "grid.level.patches=[{},{},{}]".format(*layout),
        "--set", f"load_balancer.type={balancer}",
        "--set", f"scheduler.patch_groups={'true' if groups else 'false'}", str(args.deck)]
    env = dict(os.environ, OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    lines = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    stats.unlink()
    if len(lines) != steps:
        sys.exit(f"{' '.join(cmd)}: {len(lines)} timesteps in its statistics, expected {steps}")
    digest = re.search(r"^digest u (\w+)", done.stdout, re.M).group(1)
    return lines, digest


def measure(args, scratch, ranks, threads, balancer, shape, groups=True):
    """One case: --runs rotating runs of --rounds rounds each."""
    layout = tuple(args.resolution // s for s in shape)
    row = {"ranks": ranks, "device_threads": threads, "patch": "x".join(map(str, shape)),
           "balancer": balancer, "layout": layout, "cells": args.resolution ** 3,
           "patch_groups": groups, "case": "all cores" if groups else "spare core"}
    steps = len(MODES) * args.rounds
    _, reference = run_sus(args, scratch, "host", ranks, threads, layout, balancer, steps, groups)
    orders = itertools.cycle(itertools.permutations(MODES))
    times = {mode: [] for mode in MODES}          # seconds, every measured round
    overlap = {mode: [] for mode in MODES}
    digests = set()
    for _ in range(args.runs):
        order = next(orders)
        lines, digest = run_sus(args, scratch, ",".join(order), ranks, threads, layout, balancer,
                                steps, groups)
        digests.add(digest)
        for first in range(len(MODES), len(lines), len(MODES)):  # round 0: warm-up
            for line in lines[first:first + len(MODES)]:
                times[line["scheduler"]].append(line["wall_seconds"])
                overlap[line["scheduler"]].append(line["overlap_fraction"])
    rounds = len(times["host"])
    for mode in MODES:
        row[f"{mode}_ms_per_step"] = 1e3 * statistics.median(times[mode])
        row[f"{mode}_ms_samples"] = [1e3 * t for t in times[mode]]
        row[f"{mode}_over_host"] = statistics.median(
            times[mode][r] / times["host"][r] for r in range(rounds))
        row[f"{mode}_overlap_percent"] = 100.0 * statistics.median(overlap[mode])
    row["rounds"] = rounds
    row["digests_identical"] = digests == {reference}
    row["async_improvement_percent"] = 100.0 * (statistics.median(
        times["sync"][r] / times["async"][r] for r in range(rounds)) - 1.0)
    row["fastest_mode"] = min(MODES, key=lambda m: row[f"{m}_over_host"])
    row["slowest_over_fastest_percent"] = 100.0 * (
        max(row[f"{m}_over_host"] for m in MODES) / min(row[f"{m}_over_host"] for m in MODES) - 1.0)
    return row


def main():
    arguments = parser(__doc__)
    arguments.add_argument("--ranks", default="1,2")
    arguments.add_argument("--rounds", type=int, default=60,
                           help="rounds (one timestep in each mode) per run")
    arguments.add_argument("--resolution", type=int, default=128)
    arguments.add_argument("--shapes", default=",".join("x".join(map(str, s)) for s in PATCH_SHAPES),
                           help="patch shapes, e.g. 16x16x64,32x32x32")
    arguments.add_argument("--balancers", default="sfc,round_robin",
                           help="load balancers on more than one rank")
    arguments.add_argument("--no-spare-core", action="store_true",
                           help="leave out the spare-core cases (1 rank x 1 device thread)")
    args = arguments.parse_args()
    shapes = [tuple(int(n) for n in shape.split("x")) for shape in args.shapes.split(",")]
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    results = []
    cases = []
    for ranks in [int(r) for r in args.ranks.split(",")]:
        # Round-robin balancing scatters the patches: every neighbour is on
        # the other rank, the most communication there is to hide.
        for balancer in (args.balancers.split(",") if ranks > 1 else ["sfc"]):
            cases += [(ranks, max(1, cores // ranks), balancer, shape, True) for shape in shapes]
    if cores >= 2 and not args.no_spare_core:
        cases += [(1, 1, "sfc", shape, False) for shape in shapes]
    with tempfile.TemporaryDirectory(prefix="tessera-variants-bench-") as scratch:
        for ranks, threads, balancer, shape, groups in cases:
            row = measure(args, scratch, ranks, threads, balancer, shape, groups)
            results.append(row)
            label = balancer if groups else "spare core"
            print(f"ranks {ranks} {label:>11} patch {row['patch']:>10}: " +
                  "  ".join(f"{PAPER_NAMES[m]} {row[f'{m}_ms_per_step']:6.3f} ms "
                            f"(/host {row[f'{m}_over_host']:.3f})" for m in MODES) +
                  f"  async improvement {row['async_improvement_percent']:+6.1f} %"
                  f"  slowest/fastest {row['slowest_over_fastest_percent']:+5.1f} %"
                  f"  overlap {row['async_overlap_percent']:.0f} %"
                  f"  digests {'identical' if row['digests_identical'] else 'DIFFER'}"
                  f"  ({row['rounds']} rounds)",
                  flush=True)
    summary = {"machine_cores": cores, "runs": args.runs, "rounds_per_run": args.rounds,
               "statistic": "sus --scheduler host,sync,async (modes in turn, one timestep each); "
                            "per-timestep wall_seconds (sus --stats, rank 0); ratios within a "
                            "round, medians over the rounds of all runs",
               "results": results}
    families = sorted({(r["ranks"], r["balancer"], r["case"]) for r in results})
    for ranks, balancer, case in families:
        rows = [r for r in results if (r["ranks"], r["balancer"], r["case"]) == (ranks, balancer, case)]
        gains = [r["async_improvement_percent"] for r in rows]
        key = f"{ranks}_ranks_{balancer}" if case == "all cores" else "1_rank_1_thread_spare_core"
        summary[f"mean_async_improvement_percent_{key}"] = statistics.mean(gains)
        summary[f"max_async_improvement_percent_{key}"] = max(gains)
        summary[f"worst_slowest_over_fastest_percent_{key}"] = max(
            r["slowest_over_fastest_percent"] for r in rows)
    (out / "scheduler_variants.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k != "results"}, indent=2))
    plt = pyplot()
    if plt is None:
        return
    panels = sorted({(r["ranks"], r["device_threads"], r["case"]) for r in results})
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (ranks, threads, case) in zip(axes[0], panels):
        rows = [r for r in results if (r["ranks"], r["device_threads"], r["case"]) == (ranks, threads, case)]
        xs = range(len(rows))
        width = 0.27
        for offset, mode in zip((-width, 0, width), MODES):
            ax.bar([x + offset for x in xs], [r[f"{mode}_ms_per_step"] for r in rows], width,
                   label=PAPER_NAMES[mode])
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["patch"] + ("" if r["balancer"] == "sfc" else "\nround robin") for r in rows],
                           rotation=20, fontsize=8)
        ax.set_xlabel("patch size (128^3 cells)")
        ax.set_ylabel("ms per timestep (median over rounds)")
        title = f"Burgers, {ranks} rank(s) x {threads} device thread(s)"
        ax.set_title(title if case == "all cores" else title + ",\na spare core, a task per patch",
                     fontsize=10)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "scheduler_variants.png", dpi=120)
    print(f"wrote {out / 'scheduler_variants.json'} and {out / 'scheduler_variants.png'}")


if __name__ == "__main__":
    main()
