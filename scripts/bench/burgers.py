#!/usr/bin/python3
"""Burgers throughput: Tessera in every scheduler mode against hand-written
programs, on 1 and 2 cores, measured in one invocation.

Runs sus on the Burgers benchmark deck (128^3 cells in 32^3 patches, 20
timesteps; inputs/Burgers/burgers_large.yaml with grid.level.patches=[4,4,4])
on 1 rank bound to one core and on 2 ranks (one core each), in the host, sync
and async modes, and the reference program burgers-reference (the same
arithmetic, no framework; OpenMP with 1 and 2 threads) in two layouts:
  fused:   the whole grid as one array swept by one fused loop nest;
  fused-huge: the same, its arrays in transparent huge pages as Tessera's
           cell variables are (so the page size, which alone moves a sweep
           by 10-20 %, is not mistaken for the framework's merit);
  patches: the same 32^3 patches as sus, each an array with a ghost layer,
           face ghosts copied by hand before the sweeps (what a hand-written
           AMReX program does with FillBoundary and an MFIter loop).
The runs are interleaved (every configuration once per round) so that a
noisy neighbour slows all of them alike. Reports cell updates per second
(median and best of --runs rounds), Tessera / reference from the medians,
checks that every run ends on the same field digest, and writes a JSON file
and, with matplotlib (Debian: python3-matplotlib), a PNG chart.

usage: scripts/bench/burgers.py [--runs 5] [--out bench-results] [--build build]
A benchmark, not a test: it asserts nothing about time.
"""
import os
import re
import statistics
import subprocess
import sys

from benchlib import ROOT, bar_positions, mpirun, parser, pyplot, write_results
MODES = ["host", "sync", "async"]
REFERENCES = ["fused", "fused-huge", "patches"]
LAYOUT = "[4,4,4]"
PATCHES_PER_AXIS = 4


def parse(stdout, what):
    rate = re.search(r"([0-9.e+-]+) cell updates per second", stdout)
    digest = re.search(r"^digest u ([0-9a-f]{16})$", stdout, re.M)
    if not rate or not digest:
        sys.exit(f"{what}: no rate or digest in its output:\n{stdout}")
    return float(rate.group(1)), digest.group(1)


def run_sus(build, deck, mode, ranks, steps):
    cmd = mpirun(ranks, bind="core") + [str(build / "StandAlone" / "sus"), "--quiet", "--scheduler", mode,
                           "--nthreads", "1", "--max-timesteps", str(steps),
                           "--set", f"grid.level.patches={LAYOUT}", str(deck)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return parse(done.stdout, " ".join(cmd))


def run_reference(build, layout, cores, steps, resolution):
    cpus = ",".join(str(c) for c in range(cores))
    cmd = ["taskset", "-c", cpus, str(build / "StandAlone" / "burgers-reference"),
           "--resolution", str(resolution), "--steps", str(steps),
           "--patches", str(PATCHES_PER_AXIS if layout == "patches" else 1),
           "--huge-pages", "1" if layout == "fused-huge" else "0"]
    env = dict(os.environ, OMP_NUM_THREADS=str(cores), OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        sys.exit(f"burgers-reference failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return parse(done.stdout, " ".join(cmd))


def chart(summary, path):
    plt = pyplot()
    if plt is None:
        return False
    cores = summary["cores"]
    names = REFERENCES + MODES
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(cores)
    for n, core in enumerate(cores):
        rows = summary["results"][str(core)]
        medians = [rows[name]["median"] / 1e8 for name in names]
        best = [rows[name]["best"] / 1e8 for name in names]
        xs = bar_positions(len(names), len(cores), n, width)
        bars = ax.bar(xs, medians, width, label=f"{core} core(s)")
        ax.scatter(xs, best, marker="_", color="black", zorder=3)
        for x, name, value in zip(xs, names, medians):
            if name in MODES:
                ratio = rows[name]["median"] / rows["fused"]["median"]
                ax.annotate(f"{ratio:.2f}", (x, value), ha="center", va="bottom", fontsize=8)
        del bars
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(["fused loop\n(one array)", "fused loop\nhuge pages",
                        "hand-written\n32^3 patches"] +
                       [f"sus {m}" for m in MODES])
    ax.set_ylabel("cell updates per second (1e8), median; - best")
    ax.set_title(f"Burgers {summary['resolution']}^3, {summary['steps']} steps "
                 f"(labels: sus / fused loop)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    options = parser(__doc__)
    options.add_argument("--steps", type=int, default=20)
    options.add_argument("--resolution", type=int, default=128,
                         help="the deck's resolution (for the reference)")
    options.add_argument("--cores", default="1,2")
    args = options.parse_args()
    if args.runs < 5:
        sys.exit("--runs must be at least 5 (a median of fewer says little on a shared machine)")
    cores = [int(c) for c in args.cores.split(",")]
    configurations = [(core, name) for core in cores for name in REFERENCES + MODES]
    samples = {config: [] for config in configurations}
    digests = set()
    for round_ in range(args.runs):
        for core, name in configurations:
            if name in REFERENCES:
                rate, digest = run_reference(args.build, name, core, args.steps, args.resolution)
            else:
                rate, digest = run_sus(args.build, args.deck, name, core, args.steps)
            samples[(core, name)].append(rate)
            digests.add(digest)
        print(f"round {round_ + 1}/{args.runs} done", flush=True)

    summary = {"deck": str(args.deck.relative_to(ROOT)) if args.deck.is_relative_to(ROOT) else str(args.deck),
               "layout": LAYOUT, "resolution": args.resolution, "steps": args.steps,
               "runs": args.runs, "cores": cores, "digests": sorted(digests),
               "digests_identical": len(digests) == 1, "results": {}}
    print(f"\nBurgers {args.resolution}^3 in 32^3 patches, {args.steps} steps; cell updates/s, "
          f"median and best of {args.runs} interleaved runs")
    print(f"{'cores':>5}  {'configuration':<24} {'median':>10} {'best':>10} {'/ fused':>8} "
          f"{'/ f.huge':>8} {'/ patches':>9}")
    labels = {"fused": "fused loop (one array)", "fused-huge": "fused loop, huge pages",
              "patches": "hand-written patches"}
    for core in cores:
        rows = {}
        for name in REFERENCES + MODES:
            values = samples[(core, name)]
            rows[name] = {"median": statistics.median(values), "best": max(values), "samples": values}
        for name in MODES:
            for reference in REFERENCES:
                rows[name][f"ratio_to_{reference}"] = rows[name]["median"] / rows[reference]["median"]
        summary["results"][str(core)] = rows
        for name in REFERENCES + MODES:
            row = rows[name]
            fused = f"{row['ratio_to_fused']:.3f}" if name in MODES else ""
            huge = f"{row['ratio_to_fused-huge']:.3f}" if name in MODES else ""
            patches = f"{row['ratio_to_patches']:.3f}" if name in MODES else ""
            print(f"{core:>5}  {labels.get(name, 'sus ' + name):<24} {row['median']:10.3e} "
                  f"{row['best']:10.3e} {fused:>8} {huge:>8} {patches:>9}")
    print(f"digests: {', '.join(sorted(digests))} ({'identical' if len(digests) == 1 else 'DIFFER'})")
    write_results(args.out, "burgers", summary, chart)
    if len(digests) != 1:
        sys.exit("the runs ended on different digests")


if __name__ == "__main__":
    main()
