#!/usr/bin/python3
"""Before and after of a change to the PRK sweep: two builds of sus (say, the
commit before a change and the change) beside prk-reference, on 1 core (one
rank bound to it), every run checked for the same digests, the runs
interleaved (each configuration once per round); median and best of --runs.

usage: scripts/bench/prk_ab.py --before build-before --after build [--runs 5]
       [--mode async] [--dims 2 3]
A benchmark, not a test: it asserts nothing about time.
"""
import argparse
import pathlib
import statistics
import sys
import tempfile
import types

import stencil

CASES = [(2, 8192, 4), (3, 512, 2)]  # (axes, points per axis, patches per axis)
RADII = [1, 2]


def main():
    options = argparse.ArgumentParser(description=__doc__,
                                      formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--before", type=pathlib.Path, required=True, help="build directory")
    options.add_argument("--after", type=pathlib.Path, required=True, help="build directory")
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--mode", default="async", choices=stencil.MODES)
    options.add_argument("--dims", type=int, nargs="+", default=[2, 3], choices=[2, 3])
    args = options.parse_args()
    if args.runs < 5:
        sys.exit("--runs must be at least 5")
    builds = {"before": args.before.resolve(), "after": args.after.resolve()}
    cases = [(axes, n, p, r) for axes, n, p in CASES if axes in args.dims for r in RADII]
    rates = {(case, name): [] for case in cases for name in ["reference", *builds]}
    with tempfile.TemporaryDirectory(prefix="tessera-prk-ab-") as scratch:
        tmp = pathlib.Path(scratch)
        for round_ in range(args.runs):
            for case in cases:
                axes, n, p, r = case
                build = types.SimpleNamespace(build=builds["after"], huge_pages=1)
                rate, _, digest = stencil.run_prk_reference(build, tmp, 1, axes, n, r)
                rates[(case, "reference")].append(rate)
                digests = {digest}
                for name, directory in builds.items():
                    build = types.SimpleNamespace(build=directory, huge_pages=1)
                    rate, _, digest = stencil.run_prk(build, tmp, args.mode, 1, axes, n, p, r)
                    rates[(case, name)].append(rate)
                    digests.add(digest)
                if len(digests) != 1:
                    sys.exit(f"{case}: the runs end on different digests {sorted(digests)}")
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
    print(f"\n| problem | r | prk-reference | before | after | before / ref | after / ref |")
    print("|---|---|---|---|---|---|---|")
    for case in cases:
        axes, n, _, r = case
        reference = statistics.median(rates[(case, "reference")])
        before = statistics.median(rates[(case, "before")])
        after = statistics.median(rates[(case, "after")])
        size = f"{n}^2" if axes == 2 else f"{n}^3"
        print(f"| {axes}D {size} | {r} | {reference:.0f} | {before:.0f} (best "
              f"{max(rates[(case, 'before')]):.0f}) | {after:.0f} (best "
              f"{max(rates[(case, 'after')]):.0f}) | {before / reference:.3f} | "
              f"{after / reference:.3f} |")


if __name__ == "__main__":
    main()
