#!/usr/bin/python3
"""Stencil throughput: the heat kernel of the stencil component in every
scheduler mode against a hand-written program and against the memory
bandwidth, on 1 and 2 cores, and the PRK Stencil's figure of merit, all
measured in one invocation.

Heat (inputs/Stencil/heat.yaml): u_t = alpha Laplacian(u) by explicit Euler,
the stars of radius r = 1 to 4, on
  256^3 cells in 64^3 patches (grid.level.patches=[4,4,4]) and
  128^3 cells in 32^3 patches (the same layout),
22 timesteps of which the first 2 are a warm-up: the rate counts the cell
updates of steps 3 to 22 over the sum of their wall_seconds in sus's
per-timestep statistics (sus --stats, rank 0's clock; see
docs/threading.md#statistics). sus runs on 1 rank bound to one core and on
2 ranks (one core and one device thread each, mpirun --bind-to core), in
the host, sync and async modes. Beside it in every round:
  heat-reference: the same arithmetic by hand (StandAlone/reference/,
      OpenMP, 1 and 2 threads pinned to as many cores), twice: the whole
      grid as one array swept by one fused loop nest (--patches 1, the
      fastest hand-written layout, the yardstick sus's ratio is to), and the
      same 4^3 blocks as sus's patches, with r ghost layers and face ghosts
      copied by hand; its arrays in
      transparent huge pages as Tessera's cell variables are
      (--huge-pages 0 turns that off); its final field must have the same
      digest as sus's;
  stream-triad: STREAM's triad on 1 and 2 threads. The bandwidth limit of
      the heat step is the triad's bandwidth counting 32 B per element
      (a store miss reads the line first: write-allocate) divided by 24 B
      per cell update (read u once, write the new value once and read its
      line first), i.e. the ghost cells, the boundary and the neighbours'
      re-reads are taken to come from cache. Each triad run reports its
      best of 10 repeats (STREAM's convention); the limit uses the median
      of those over the rounds.
PRK (inputs/Stencil/prk_2d.yaml, prk_3d.yaml): the Parallel Research
Kernels' Stencil, 2D 8192^2 points in 4x4 patches and 3D 512^3 points in
2x2x2 patches, radius 1 and 2, 10 timed sweeps after a warm-up
(time.max_timesteps=11), on 1 and 2 ranks in every mode; the figure of
merit is the PRK's "Rate (MFlops/s)" (its flop count, 2 stencil_size + 1
per active point). Beside it in every round:
  prk-reference: the PRK's in-place algorithm as the PRK writes it
      (StandAlone/reference/prk_reference.cc: out += star(in) over the
      active points, then in += 1), on as many MPI ranks of one thread as
      sus, bound alike; its final in and out must have sus's digests. sus's
      ratio is to it.
--only heat or --only prk runs one half.

The runs are interleaved (every configuration once per round) so that a
noisy neighbour slows all of them alike; median and best of --runs rounds,
and for sus beside its reference both the ratio of the medians and the
median of each round's ratio (round_ratio: the steadier of the two where
the machine drifts between rounds).
Writes stencil.json and, with matplotlib (Debian: python3-matplotlib), a
PNG bar chart stencil.png into --out (docs/bench; bench-results with
--quick), and prints markdown tables for docs/benchmarks.md.

usage: scripts/bench/stencil.py [--runs 5] [--out docs/bench] [--build build]
       scripts/bench/stencil.py --quick     (128^3, r = 1, 2 runs: a smoke test)
A benchmark, not a test: it asserts nothing about time. It exits non-zero
when the runs of one problem end on different digests or the PRK check fails.
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

from benchlib import ROOT, bar_positions, mpirun, parser, pyplot, write_results

MODES = ["host", "sync", "async"]
# The hand-written heat-reference twice: one array (fused), and the same blocks as sus's patches.
REFERENCES = ["fused", "reference"]
HEAT_DECK = ROOT / "inputs" / "Stencil" / "heat.yaml"
PRK_DECKS = {2: ROOT / "inputs" / "Stencil" / "prk_2d.yaml",
             3: ROOT / "inputs" / "Stencil" / "prk_3d.yaml"}
# (cells per axis, patches per axis)
CASES = [(256, 4), (128, 4)]
QUICK_CASES = [(128, 4)]
RADII = [1, 2, 3, 4]
WARMUP = 2
STEPS = 20
# Pinned here, and given to sus and heat-reference alike.
ALPHA = 1.0
MULTIPLIER = 0.5
BYTES_PER_CELL_UPDATE = 24
BYTES_PER_CELL_UPDATE_ASSUMED = (
    "24 B per cell update: read u once (8 B), write the new value once (8 B) and read its "
    "cache line before writing (write-allocate, 8 B); ghost cells, boundary values and the "
    "neighbours' re-reads are assumed to come from cache")
TRIAD_BYTES = 32  # per element, with write-allocate: the limit's bandwidth
TRIAD_ELEMENTS = 1 << 25
QUICK_TRIAD_ELEMENTS = 1 << 23
TRIAD_REPEATS = 10
# (axes, points per axis, patches per axis along the axes)
PRK_CASES = [(2, 8192, 4), (3, 512, 2)]
QUICK_PRK_CASES = [(2, 2048, 4), (3, 128, 2)]
PRK_RADII = [1, 2]
PRK_SWEEPS = 11  # 10 timed after one warm-up
TIMEOUT = 900


def rel(path):
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def sci(value):
    """5.403e8 rather than 5.403e+08, as docs/benchmarks.md writes them."""
    mantissa, exponent = f"{value:.3e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def run(cmd, env, cwd):
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=TIMEOUT)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def pinned(cores):
    """taskset to the first `cores` cores, as burgers.py runs its references."""
    return ["taskset", "-c", ",".join(str(c) for c in range(cores))]


def digest_of(stdout, what):
    found = re.search(r"^digest u ([0-9a-f]{16})$", stdout, re.M)
    if not found:
        sys.exit(f"{what}: no digest in its output:\n{stdout}")
    return found.group(1)


def round_ratio(samples, references):
    """The median over rounds of each round's sample / reference. Each round runs
    both within seconds of each other, so the machine's drift between rounds
    (15k to 28k MFlops/s for one PRK case on two ranks within one run here)
    cancels in each ratio, where it moves the ratio of the two medians."""
    return statistics.median(a / b for a, b in zip(samples, references))


def run_sus_heat(args, tmp, mode, ranks, resolution, patches, radius, extra=()):
    """Cell updates per second of the timed steps (from --stats) and the digest;
    `extra`: more sus options (e.g. --set scheduler.tiling=false)."""
    stats = tmp / f"stats-{mode}-{ranks}-{resolution}-{radius}.jsonl"
    cmd = mpirun(ranks, bind="core") + [
        str(args.build / "StandAlone" / "sus"), "--quiet", "--scheduler", mode,
        "--nthreads", "1", "--stats", str(stats),
        "--set", f"stencil.radius={radius}",
        "--set", f"grid.level.extra_cells=[{radius},{radius},{radius}]",
        "--set", f"grid.level.resolution=[{resolution},{resolution},{resolution}]",
        "--set", f"grid.level.patches=[{patches},{patches},{patches}]",
        "--set", f"time.max_timesteps={WARMUP + STEPS}",
        "--set", "time.max_time=1.0e9",
        "--set", f"stencil.alpha={ALPHA}",
        "--set", f"time.timestep_multiplier={MULTIPLIER}",
        "--set", "stencil.wavenumber=1", *extra,
        str(args.deck)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    what = " ".join(cmd)
    stdout = run(cmd, env, tmp)
    digest = digest_of(stdout, what)
    try:
        lines = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as error:
        sys.exit(f"{what}: cannot read its statistics {stats}: {error}")
    stats.unlink()
    walls = [line["wall_seconds"] for line in lines
             if WARMUP < line["timestep"] <= WARMUP + STEPS]
    if len(walls) != STEPS or not sum(walls) > 0.0:
        sys.exit(f"{what}: expected the wall_seconds of timesteps {WARMUP + 1} to "
                 f"{WARMUP + STEPS} in its statistics, found {len(walls)}")
    return resolution ** 3 * STEPS / sum(walls), digest


def run_reference(args, tmp, cores, resolution, patches, radius):
    cmd = pinned(cores) + [
        str(args.build / "StandAlone" / "heat-reference"),
        "--resolution", str(resolution), "--patches", str(patches), "--radius", str(radius),
        "--steps", str(STEPS), "--warmup", str(WARMUP), "--alpha", str(ALPHA),
        "--multiplier", str(MULTIPLIER), "--huge-pages", str(args.huge_pages)]
    env = dict(os.environ, OMP_NUM_THREADS=str(cores), OMP_PROC_BIND="false")
    what = " ".join(cmd)
    stdout = run(cmd, env, tmp)
    rate = re.search(r"([0-9.e+-]+) cell updates per second", stdout)
    if not rate:
        sys.exit(f"{what}: no rate in its output:\n{stdout}")
    return float(rate.group(1)), digest_of(stdout, what)


TRIAD_LINE = re.compile(r"^triad bandwidth \((\d+) B/element[^)]*\): "
                        r"best ([0-9.]+) GB/s, median ([0-9.]+) GB/s$", re.M)


def run_triad(args, tmp, cores, elements):
    """{bytes per element: (best, median) GB/s} of one stream-triad run."""
    cmd = pinned(cores) + [str(args.build / "StandAlone" / "stream-triad"),
                           "--elements", str(elements), "--repeats", str(TRIAD_REPEATS)]
    env = dict(os.environ, OMP_NUM_THREADS=str(cores), OMP_PROC_BIND="false")
    stdout = run(cmd, env, tmp)
    found = {int(m.group(1)): (float(m.group(2)), float(m.group(3)))
             for m in TRIAD_LINE.finditer(stdout)}
    if 24 not in found or 32 not in found:
        sys.exit(f"{' '.join(cmd)}: no bandwidth lines in its output:\n{stdout}")
    return found


PRK_RATE = re.compile(r"Rate \(MFlops/s\): ([0-9.e+-]+)\s+Avg time \(s\): ([0-9.e+-]+)")


def prk_result(stdout, what):
    """(MFlops/s, average seconds per timed sweep, digests of in and out)."""
    if not re.search(r"^Solution validates$", stdout, re.M):
        sys.exit(f"{what}: the PRK check failed:\n{stdout}")
    found = PRK_RATE.search(stdout)
    digests = tuple(re.search(rf"^digest stencil\.{name} ([0-9a-f]{{16}})$", stdout, re.M)
                    for name in ("in", "out"))
    if not found or not all(digests):
        sys.exit(f"{what}: no PRK rate or digests in its output:\n{stdout}")
    return float(found.group(1)), float(found.group(2)), tuple(d.group(1) for d in digests)


def run_prk(args, tmp, mode, ranks, axes, n, patches, radius, sets=()):
    """sets: more deck settings (KEY=VALUE), e.g. for builds_ab.py --after-set."""
    size = f"[{n},{n},1]" if axes == 2 else f"[{n},{n},{n}]"
    layout = f"[{patches},{patches},1]" if axes == 2 else f"[{patches},{patches},{patches}]"
    upper = f"[{n}.0,{n}.0,1.0]" if axes == 2 else f"[{n}.0,{n}.0,{n}.0]"
    cmd = mpirun(ranks, bind="core") + [
        str(args.build / "StandAlone" / "sus"), "--quiet", "--scheduler", mode,
        "--nthreads", "1",
        "--set", f"grid.level.resolution={size}", "--set", f"grid.level.upper={upper}",
        "--set", f"grid.level.patches={layout}", "--set", f"stencil.radius={radius}",
        "--set", f"time.max_timesteps={PRK_SWEEPS}",
        *[arg for setting in sets for arg in ("--set", setting)],
        str(PRK_DECKS[axes])]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    return prk_result(run(cmd, env, tmp), " ".join(cmd))


def run_prk_reference(args, tmp, ranks, axes, n, radius):
    cmd = mpirun(ranks, bind="core") + [
        str(args.build / "StandAlone" / "prk-reference"), "--dims", str(axes),
        "--resolution", str(n), "--radius", str(radius),
        "--iterations", str(PRK_SWEEPS - 1), "--huge-pages", str(args.huge_pages)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    return prk_result(run(cmd, env, tmp), " ".join(cmd))


def stats_of(values):
    return {"median": statistics.median(values), "best": max(values), "samples": values}


def chart(summary, path):
    plt = pyplot()
    if plt is None:
        return False
    cores = summary["cores"]
    prk_rows = summary["prk"]
    problems = []
    for row in summary["heat"]:
        key = (row["resolution"], row["patch_cells"], row["radius"])
        if key not in problems:
            problems.append(key)
    names = REFERENCES + MODES
    labels = ["hand-written\none array", "hand-written\nblocks"] + [f"sus {m}" for m in MODES]
    if not problems and not prk_rows:
        return False
    # One row of panels per heat problem size (a panel per radius), and the
    # PRK below them across the whole width.
    sizes = list(dict.fromkeys((resolution, patch) for resolution, patch, _ in problems))
    radii = list(dict.fromkeys(radius for _, _, radius in problems))
    columns = max(1, len(radii))
    rows = len(sizes) + (1 if prk_rows else 0)
    # The PRK panel has a group of bars per case: as wide as it needs.
    fig = plt.figure(figsize=(max(4.2 * columns, 0.9 * len(prk_rows)), 4.6 * rows))
    grid = fig.add_gridspec(rows, columns)
    heat_axes = [fig.add_subplot(grid[sizes.index((resolution, patch)), radii.index(radius)])
                 for resolution, patch, radius in problems]
    width = 0.8 / len(cores)
    for ax, (resolution, patch, radius) in zip(heat_axes, problems):
        for n, core in enumerate(cores):
            row = next(r for r in summary["heat"] if r["resolution"] == resolution and
                       r["radius"] == radius and r["cores"] == core)
            medians = [row["results"][name]["median"] / 1e8 for name in names]
            best = [row["results"][name]["best"] / 1e8 for name in names]
            xs = bar_positions(len(names), len(cores), n, width)
            bars = ax.bar(xs, medians, width, label=f"{core} core(s)")
            ax.scatter(xs, best, marker="_", color="black", zorder=3)
            for x, name, value in zip(xs, names, medians):
                fraction = row["results"][name]["fraction_of_limit"]
                ax.annotate(f"{fraction:.2f}", (x, value), ha="center", va="bottom", fontsize=7)
            limit = summary["triad"][str(core)]["limit_cell_updates_per_second"] / 1e8
            ax.axhline(limit, color=bars.patches[0].get_facecolor(), linestyle="--", linewidth=1)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(f"heat {resolution}^3, {patch}^3 patches, r = {radius}", fontsize=9)
        ax.set_ylabel("cell updates per second (1e8)")
        ax.legend(fontsize=7)
    if prk_rows:
        ax = fig.add_subplot(grid[rows - 1, :])
        groups = [f"{row['axes']}D {row['resolution']}, r={row['radius']}\n{row['cores']} rank(s)"
                  for row in prk_rows]
        width = 0.8 / len(MODES)
        for m, mode in enumerate(MODES):
            xs = bar_positions(len(prk_rows), len(MODES), m, width)
            ax.bar(xs, [row["results"][mode]["ratio_to_reference"] for row in prk_rows], width,
                   label=f"sus {mode}")
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        ax.set_xticks(range(len(prk_rows)))
        ax.set_xticklabels(groups, fontsize=7, rotation=30, ha="right")
        for g, row in enumerate(prk_rows):
            best = max(row["results"][mode]["ratio_to_reference"] for mode in MODES)
            ax.annotate(f"{best:.2f}", (g, best), ha="center", va="bottom", fontsize=7)
        ax.set_title("PRK Stencil: sus / prk-reference (median rates)", fontsize=9)
        ax.set_ylabel("ratio of the PRK's MFlops/s")
        ax.legend(fontsize=7)
    title = f"Stencils, median of {summary['runs']} interleaved runs"
    if problems:
        title += (" (- best); heat labels: fraction of the bandwidth limit (dashed, triad at "
                  f"32 B/element / {BYTES_PER_CELL_UPDATE} B per update)")
    if prk_rows:
        title += "; PRK labels: the fastest mode's ratio"
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    options = parser(__doc__, runs=None)
    options.set_defaults(deck=HEAT_DECK, out=None)
    options.add_argument("--only", choices=["heat", "prk"],
                         help="run only the heat or only the PRK cases (the triad always)")
    options.add_argument("--cores", default="1,2",
                         help="cores (sus ranks, reference and triad threads) to run on")
    options.add_argument("--huge-pages", type=int, choices=[0, 1], default=1,
                         help="heat-reference's arrays in huge pages, as sus's (1)")
    options.add_argument("--quick", action="store_true",
                         help="a smoke test: 128^3 and r = 1 only, 2 runs, a smaller triad and "
                              "PRK 2048^2 and 128^3 at r = 1; writes to bench-results by default")
    args = options.parse_args()
    runs = args.runs if args.runs is not None else (2 if args.quick else 5)
    if runs < 1 or (runs < 5 and not args.quick):
        sys.exit("--runs must be at least 5 (a median of fewer says little on a shared machine)")
    out = args.out if args.out is not None else (
        ROOT / "bench-results" if args.quick else ROOT / "docs" / "bench")
    cases = QUICK_CASES if args.quick else CASES
    radii = [1] if args.quick else RADII
    triad_elements = QUICK_TRIAD_ELEMENTS if args.quick else TRIAD_ELEMENTS
    prk_cases = [] if args.only == "heat" else QUICK_PRK_CASES if args.quick else PRK_CASES
    prk_radii = [1] if args.quick else PRK_RADII
    if args.only == "prk":
        cases = []
    cores = [int(c) for c in args.cores.split(",")]
    for program in ["sus", "heat-reference", "stream-triad", "prk-reference"]:
        if not (args.build / "StandAlone" / program).exists():
            sys.exit(f"{args.build / 'StandAlone' / program} not found: build it first "
                     f"(cmake --build {args.build} --target sus heat-reference stream-triad "
                     "prk-reference, or bench-tools)")

    heat_keys = [(core, n, p, r, name) for core in cores for n, p in cases for r in radii
                 for name in REFERENCES + MODES]
    heat = {key: [] for key in heat_keys}
    digests = {(n, r): set() for n, _ in cases for r in radii}
    triad = {core: {24: [], 32: []} for core in cores}
    prk_keys = [(core, axes, n, p, r) for core in cores for axes, n, p in prk_cases
                for r in prk_radii]
    prk = {(key, name): [] for key in prk_keys for name in ["reference"] + MODES}
    prk_digests = {key[1:]: set() for key in prk_keys}
    with tempfile.TemporaryDirectory(prefix="tessera-stencil-bench-") as scratch:
        tmp = pathlib.Path(scratch)
        for round_ in range(runs):
            for core in cores:
                measured = run_triad(args, tmp, core, triad_elements)
                for size in (24, 32):
                    triad[core][size].append(measured[size][0])  # each run's best
                for n, p in cases:
                    for r in radii:
                        for name, blocks in (("fused", 1), ("reference", p)):
                            rate, digest = run_reference(args, tmp, core, n, blocks, r)
                            heat[(core, n, p, r, name)].append(rate)
                            digests[(n, r)].add(digest)
                        for mode in MODES:
                            rate, digest = run_sus_heat(args, tmp, mode, core, n, p, r)
                            heat[(core, n, p, r, mode)].append(rate)
                            digests[(n, r)].add(digest)
            for key in prk_keys:
                core, axes, n, p, r = key
                rate, seconds, digest = run_prk_reference(args, tmp, core, axes, n, r)
                prk[(key, "reference")].append((rate, seconds))
                prk_digests[key[1:]].add(digest)
                for mode in MODES:
                    rate, seconds, digest = run_prk(args, tmp, mode, core, axes, n, p, r)
                    prk[(key, mode)].append((rate, seconds))
                    prk_digests[key[1:]].add(digest)
            print(f"round {round_ + 1}/{runs} done", flush=True)

    summary = {
        "heat_deck": rel(args.deck), "prk_decks": {str(a): rel(d) for a, d in PRK_DECKS.items()},
        "quick": args.quick,
        "runs": runs, "cores": cores, "warmup_steps": WARMUP, "timed_steps": STEPS,
        "alpha": ALPHA, "timestep_multiplier": MULTIPLIER,
        "reference_huge_pages": bool(args.huge_pages),
        "sus": "mpirun --bind-to core, 1 rank per core, --nthreads 1; rate = cells x timed steps "
               "/ sum of the timed steps' wall_seconds from --stats (rank 0)",
        "reference": "heat-reference with as many OpenMP threads as cores (taskset), the same "
                     "blocks as sus's patches; rate over the timed steps",
        "fused": "heat-reference --patches 1: the whole grid one array, one fused loop nest, "
                 "no ghost copies (the fastest hand-written layout); sus's ratio is to it",
        "bytes_per_cell_update": BYTES_PER_CELL_UPDATE,
        "bytes_per_cell_update_assumed": BYTES_PER_CELL_UPDATE_ASSUMED,
        "limit": f"median over runs of stream-triad's best bandwidth counting {TRIAD_BYTES} B per "
                 f"element (write-allocate), divided by {BYTES_PER_CELL_UPDATE} B per cell update",
        "prk_reference": "prk-reference on as many MPI ranks of one thread as sus (mpirun "
                         "--bind-to core): the PRK's in-place algorithm; sus's ratio is to it",
        "prk_flops": "the PRK's count: 2 stencil_size + 1 per active point and sweep",
        "triad": {}, "heat": [], "heat_digests": {}, "prk": [], "prk_digests": {}}
    for core in cores:
        limit = statistics.median(triad[core][TRIAD_BYTES]) * 1e9 / BYTES_PER_CELL_UPDATE
        summary["triad"][str(core)] = {
            "elements": triad_elements, "repeats": TRIAD_REPEATS,
            "gb_per_s_24_bytes_per_element": stats_of(triad[core][24]),
            "gb_per_s_32_bytes_per_element": stats_of(triad[core][32]),
            "limit_cell_updates_per_second": limit}
    for n, p in cases:
        for r in radii:
            for core in cores:
                limit = summary["triad"][str(core)]["limit_cell_updates_per_second"]
                results = {}
                for name in REFERENCES + MODES:
                    results[name] = stats_of(heat[(core, n, p, r, name)])
                    results[name]["fraction_of_limit"] = results[name]["median"] / limit
                for mode in MODES:
                    results[mode]["ratio_to_fused"] = (results[mode]["median"] /
                                                       results["fused"]["median"])
                    results[mode]["ratio_to_reference"] = (results[mode]["median"] /
                                                           results["reference"]["median"])
                    results[mode]["round_ratio_to_fused"] = round_ratio(
                        heat[(core, n, p, r, mode)], heat[(core, n, p, r, "fused")])
                summary["heat"].append({"resolution": n, "patches_per_axis": p,
                                        "patch_cells": n // p, "radius": r, "cores": core,
                                        "results": results})
            found = sorted(digests[(n, r)])
            summary["heat_digests"][f"{n}^3 r={r}"] = {"digests": found,
                                                       "identical": len(found) == 1}
    for key in prk_keys:
        core, axes, n, p, r = key
        results = {}
        for name in ["reference"] + MODES:
            samples = prk[(key, name)]
            results[name] = stats_of([sample[0] for sample in samples])
            results[name]["avg_time_seconds_median"] = statistics.median(x[1] for x in samples)
        for mode in MODES:
            results[mode]["ratio_to_reference"] = (results[mode]["median"] /
                                                   results["reference"]["median"])
            results[mode]["round_ratio_to_reference"] = round_ratio(
                [x[0] for x in prk[(key, mode)]], [x[0] for x in prk[(key, "reference")]])
        summary["prk"].append({"axes": axes, "resolution": n, "patches_per_axis": p,
                               "radius": r, "cores": core, "sweeps": PRK_SWEEPS,
                               "results": results})
    for (axes, n, p, r), found in prk_digests.items():
        summary["prk_digests"][f"{axes}D {n} r={r}"] = {"digests": sorted(" ".join(d) for d in found),
                                                        "identical": len(found) == 1}

    print(f"\nSTREAM triad ({triad_elements} elements, best of {TRIAD_REPEATS} per run), "
          f"median and best of {runs} runs; limit = triad at {TRIAD_BYTES} B/element / "
          f"{BYTES_PER_CELL_UPDATE} B per cell update\n")
    print("| cores | triad, 24 B/element (GB/s) | best | triad, 32 B/element (GB/s) | best | "
          "limit (cell updates/s) |")
    print("|---|---|---|---|---|---|")
    for core in cores:
        t = summary["triad"][str(core)]
        a, b = t["gb_per_s_24_bytes_per_element"], t["gb_per_s_32_bytes_per_element"]
        print(f"| {core} | {a['median']:.2f} | {a['best']:.2f} | {b['median']:.2f} | "
              f"{b['best']:.2f} | {sci(t['limit_cell_updates_per_second'])} |")
    print(f"\nHeat, cell updates/s over steps {WARMUP + 1}-{WARMUP + STEPS}, median and best of "
          f"{runs} interleaved runs ({BYTES_PER_CELL_UPDATE_ASSUMED})\n")
    print("| cells | patches | r | cores | configuration | median | best | sus / fused | "
          "per round | sus / blocks | median / limit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    labels = {"fused": "hand-written, one array", "reference": "hand-written blocks"}
    for row in summary["heat"]:
        for name in REFERENCES + MODES:
            result = row["results"][name]
            label = labels.get(name, f"sus {name}")
            fused = f"{result['ratio_to_fused']:.3f}" if name in MODES else ""
            rounds = f"{result['round_ratio_to_fused']:.3f}" if name in MODES else ""
            blocks = f"{result['ratio_to_reference']:.3f}" if name in MODES else ""
            print(f"| {row['resolution']}^3 | {row['patch_cells']}^3 | {row['radius']} | "
                  f"{row['cores']} | {label} | {sci(result['median'])} | {sci(result['best'])} | "
                  f"{fused} | {rounds} | {blocks} | {result['fraction_of_limit']:.2f} |")
    print(f"\nPRK Stencil, {PRK_SWEEPS - 1} timed sweeps, the PRK's MFlops/s, median and best "
          f"of {runs} interleaved runs; sus / reference of the medians, and the median of "
          f"each round's ratio\n")
    print("| problem | r | ranks | configuration | median | best | Avg time (s) | sus / reference "
          "| per round |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in summary["prk"]:
        problem = (f"2D {row['resolution']}^2" if row["axes"] == 2
                   else f"3D {row['resolution']}^3")
        for name in ["reference"] + MODES:
            result = row["results"][name]
            label = "prk-reference" if name == "reference" else f"sus {name}"
            ratio = f"{result['ratio_to_reference']:.3f}" if name in MODES else ""
            rounds = f"{result['round_ratio_to_reference']:.3f}" if name in MODES else ""
            print(f"| {problem} | {row['radius']} | {row['cores']} | {label} | "
                  f"{result['median']:.1f} | {result['best']:.1f} | "
                  f"{result['avg_time_seconds_median']:.6f} | {ratio} | {rounds} |")
    print()
    all_identical = True
    for problem, found in {**summary["heat_digests"], **summary["prk_digests"]}.items():
        all_identical = all_identical and found["identical"]
        print(f"digests {problem}: {', '.join(found['digests'])} "
              f"({'identical' if found['identical'] else 'DIFFER'})")
    write_results(out, "stencil", summary, chart)
    if not all_identical:
        sys.exit("the runs of one problem ended on different digests")


if __name__ == "__main__":
    main()
