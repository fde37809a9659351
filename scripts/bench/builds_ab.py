#!/usr/bin/python3
"""Before and after of a change: two builds of sus (the commit before a change
and the change, say) run the same problems in one invocation, interleaved
(each configuration once per round), every pair of runs checked for the same
digests; median and best of --runs (every other round in the reverse order,
so that neither build always runs first: with a fixed order, the second
build of the same program measured 3-5 % slower). The references of the problem's own
benchmark run beside them where they exist (prk-reference for the PRK, the
fused Burgers loop), so that a change of the machine's speed shows too.

  --problem prk      the PRK Stencil (stencil.py's cases), --mode
  --problem burgers  Burgers (burgers.py's 128^3 deck and layout), every mode
  --problem gemm     the GEMM (gemm.py's shapes)
on 1 rank (1 core; the GEMM: 2 threads) or --ranks ranks of 1 core (a
change to what moves between ranks shows only there).

For the PRK, --before-set / --after-set KEY=VALUE (repeatable) add deck
settings to either side: with the same build on both, a setting's A/B
(e.g. --after-set scheduler.streaming_stores=true).

usage: scripts/bench/builds_ab.py --problem prk --before build-before --after build
       [--runs 5] [--mode async] [--small] [--ranks 2] [--before-set K=V] [--after-set K=V]
A benchmark, not a test: it asserts nothing about time.
"""
import argparse
import pathlib
import statistics
import sys
import tempfile
import types

import burgers
import gemm
import stencil
from benchlib import LARGE_DECK

PRK_CASES = [(2, 8192, 4, r) for r in (1, 2)] + [(3, 512, 2, r) for r in (1, 2)]


def ranks_name(ranks):
    return "1 core" if ranks == 1 else f"{ranks} ranks"


def prk_runs(args, tmp, builds):
    """(case, name) -> a callable giving (rate, digest) for each configuration."""
    runs = {}
    for axes, n, p, r in PRK_CASES:
        if args.small:
            n //= 4
        case = f"PRK {axes}D {n}^{axes} r={r} {ranks_name(args.ranks)}"
        reference = types.SimpleNamespace(build=builds["after"], huge_pages=1)
        runs[(case, "reference")] = (
            lambda a=axes, n=n, r=r: stencil.run_prk_reference(reference, tmp, args.ranks, a, n,
                                                               r)[::2])
        for name, build in builds.items():
            options = types.SimpleNamespace(build=build, huge_pages=1)
            sets = args.before_set if name == "before" else args.after_set
            runs[(case, name)] = (lambda o=options, a=axes, n=n, p=p, r=r, s=sets:
                                  stencil.run_prk(o, tmp, args.mode, args.ranks, a, n, p, r,
                                                  s)[::2])
    return runs


def burgers_runs(args, tmp, builds):
    runs = {}
    cores = ranks_name(args.ranks)
    runs[(f"Burgers {cores}", "reference")] = (
        lambda: burgers.run_reference(builds["after"], "fused-huge", args.ranks, args.steps, 128))
    for mode in stencil.MODES:
        for name, build in builds.items():
            runs[(f"Burgers {mode} {cores}", name)] = (
                lambda b=build, m=mode: burgers.run_sus(b, LARGE_DECK, m, args.ranks, args.steps))
    return runs


def gemm_runs(args, tmp, builds):
    runs = {}
    for shape in gemm.SHAPES:
        name_, m, n, k = shape
        if args.small:
            shape = (name_, m // 4, n // 4, k // 4)
        for name, build in builds.items():
            options = types.SimpleNamespace(build=build, deck=gemm.GEMM_DECK, scheduler=None)
            runs[(f"GEMM {shape[0]} {ranks_name(args.ranks)}", name)] = (
                lambda o=options, s=shape: (gemm.run_sus(o, tmp, s, args.ranks,
                                                         gemm.TESSERA_TIMESTEPS)["gflops"], None))
    return runs


def main():
    options = argparse.ArgumentParser(description=__doc__,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--problem", choices=["prk", "burgers", "gemm"], required=True)
    options.add_argument("--before", type=pathlib.Path, required=True, help="build directory")
    options.add_argument("--after", type=pathlib.Path, required=True, help="build directory")
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--mode", default="async", choices=stencil.MODES, help="PRK only")
    options.add_argument("--small", action="store_true", help="smaller problems: a smoke test")
    options.add_argument("--ranks", type=int, default=1,
                         help="MPI ranks of one core each (1: one core; the GEMM: 2 threads)")
    options.add_argument("--steps", type=int, default=20,
                         help="Burgers only: timesteps per run (burgers.py's 20 by default)")
    for side in ("before", "after"):
        options.add_argument(f"--{side}-set", action="append", default=[], metavar="KEY=VALUE",
                             help=f"PRK only: a deck setting for the {side} runs (repeatable)")
    args = options.parse_args()
    if (args.before_set or args.after_set) and args.problem != "prk":
        sys.exit("--before-set and --after-set are for --problem prk")
    if args.runs < 5 and not args.small:
        sys.exit("--runs must be at least 5")
    builds = {"before": args.before.resolve(), "after": args.after.resolve()}
    make = {"prk": prk_runs, "burgers": burgers_runs, "gemm": gemm_runs}[args.problem]
    with tempfile.TemporaryDirectory(prefix="tessera-builds-ab-") as scratch:
        runs = make(args, pathlib.Path(scratch), builds)
        rates = {key: [] for key in runs}
        for round_ in range(args.runs):
            digests = {}
            # Every other round backwards: a run directly after another of
            # the same problem may find the machine (caches, page cache,
            # clock) as the first left it, so neither build always goes first.
            order = list(runs.items())
            if round_ % 2:
                order.reverse()
            for (case, name), run in order:
                rate, digest = run()
                rates[(case, name)].append(rate)
                if digest is not None:
                    # Burgers: every mode and the reference end on one field.
                    digests.setdefault("Burgers" if args.problem == "burgers" else case,
                                       set()).add(digest)
            for case, found in digests.items():
                if len(found) != 1:
                    sys.exit(f"{case}: the runs end on different digests {sorted(found)}")
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
    cases = list(dict.fromkeys(case for case, _ in runs))
    print("\n| problem | reference | before | after | after / before |")
    print("|---|---|---|---|---|")
    for case in cases:
        cells = []
        for name in ["reference", "before", "after"]:
            samples = rates.get((case, name))
            cells.append(f"{statistics.median(samples):.4g} (best {max(samples):.4g})"
                         if samples else "")
        ratio = ""
        if (case, "after") in rates:
            after = statistics.median(rates[(case, "after")])
            ratio = f"{after / statistics.median(rates[(case, 'before')]):.3f}"
        print(f"| {case} | {' | '.join(cells)} | {ratio} |")


if __name__ == "__main__":
    main()
