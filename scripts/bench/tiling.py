#!/usr/bin/env python3
"""Tiled against untiled: the heat step of the stencil component in the
device modes (sync, async), whose stencils run in cache tiles by default,
against the same runs with scheduler.tiling=false, on every CPU case of
scripts/bench/stencil.py (256^3 in 64^3 patches and 128^3 in 32^3, r = 1
to 4, 1 rank on one core and 2 ranks on two). The rate is stencil.py's
(cell updates per second over the timed steps, from sus --stats); the runs
are interleaved (every configuration once per round) and every run of a
problem must end on the same digest.

Writes tiling.json and, with matplotlib, tiling.png into --out
(docs/bench by default) and prints the markdown table of docs/benchmarks.md.
  usage: scripts/bench/tiling.py [--build build] [--runs 5] [--out DIR]
"""
import statistics
import sys
import tempfile
import pathlib

from benchlib import ROOT, bar_positions, parser, pyplot, write_results
from stencil import CASES, HEAT_DECK, RADII, rel, run_sus_heat, sci

MODES = ["sync", "async"]
TILINGS = {"tiled": (), "untiled": ("--set", "scheduler.tiling=false")}


def chart(summary, path):
    plt = pyplot()
    if plt is None:
        return False
    rows = summary["cases"]
    fig, ax = plt.subplots(figsize=(max(8.0, 0.5 * len(rows)), 4.8))
    width = 0.8 / len(MODES)
    for m, mode in enumerate(MODES):
        xs = bar_positions(len(rows), len(MODES), m, width)
        ax.bar(xs, [row[mode]["tiled_over_untiled"] for row in rows], width, label=mode)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['resolution']}^3 r={r['radius']}\n{r['cores']} core(s)" for r in rows],
                       fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("tiled / untiled (median cell updates/s)")
    ax.set_title(f"Heat: tiled against untiled, median of {summary['runs']} interleaved runs",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    options = parser(__doc__)
    options.set_defaults(deck=HEAT_DECK, out=ROOT / "docs" / "bench")
    options.add_argument("--cores", default="1,2")
    args = options.parse_args()
    args.build = args.build.resolve()
    if args.runs < 5:
        sys.exit("--runs must be at least 5 (a median of fewer says little on a shared machine)")
    if not (args.build / "StandAlone" / "sus").exists():
        sys.exit(f"{args.build / 'StandAlone' / 'sus'} not found: build it first")
    cores = [int(c) for c in args.cores.split(",")]
    keys = [(core, n, p, r) for core in cores for n, p in CASES for r in RADII]
    rates = {(key, mode, tiling): [] for key in keys for mode in MODES for tiling in TILINGS}
    digests = {(n, r): set() for _, n, _, r in keys}
    with tempfile.TemporaryDirectory(prefix="tessera-tiling-bench-") as scratch:
        tmp = pathlib.Path(scratch)
        for round_ in range(args.runs):
            for key in keys:
                core, n, p, r = key
                for mode in MODES:
                    for tiling, extra in TILINGS.items():
                        rate, digest = run_sus_heat(args, tmp, mode, core, n, p, r, extra)
                        rates[(key, mode, tiling)].append(rate)
                        digests[(n, r)].add(digest)
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
    for (n, r), found in digests.items():
        if len(found) != 1:
            sys.exit(f"{n}^3 r={r}: the runs ended on different digests {sorted(found)}")

    summary = {"deck": rel(args.deck), "runs": args.runs, "cores": cores, "cases": []}
    print("\n| cells | patches | r | cores | mode | tiled (median) | untiled (median) | tiled / untiled |")
    print("|---|---|---|---|---|---|---|---|")
    for key in keys:
        core, n, p, r = key
        row = {"resolution": n, "patch_cells": n // p, "radius": r, "cores": core}
        for mode in MODES:
            tiled = statistics.median(rates[(key, mode, "tiled")])
            untiled = statistics.median(rates[(key, mode, "untiled")])
            row[mode] = {"tiled": rates[(key, mode, "tiled")],
                         "untiled": rates[(key, mode, "untiled")],
                         "tiled_median": tiled, "untiled_median": untiled,
                         "tiled_over_untiled": tiled / untiled}
            print(f"| {n}^3 | {n // p}^3 | {r} | {core} | {mode} | {sci(tiled)} | {sci(untiled)} "
                  f"| {tiled / untiled:.3f} |")
        summary["cases"].append(row)
    write_results(args.out, "tiling", summary, chart)


if __name__ == "__main__":
    main()
