#!/usr/bin/python3
"""How long the task graph compiler takes as the patch count grows.

1. sus on 2 ranks: the Burgers benchmark deck (128^3 cells) cut into 16^3 =
   4,096 and 32^3 = 32,768 patches, one timestep; the compile time of the
   timestep graph on the slowest rank, from sus's log. Median of --runs runs,
   interleaved.
2. tessera-compile-bench: one rank's graph of a 100^3 = 10^6-patch level
   spread over 10^4 ranks (the scale of docs/graph-cost-model.md), compiled
   in one process: compilation needs no communication.

Writes a JSON file. A benchmark, not a test: it asserts nothing about time.

usage: scripts/bench/graph_compile.py [--runs 5] [--out bench-results] [--build build]
"""
import json
import os
import re
import statistics
import subprocess
import sys

from benchlib import mpirun, parser, require_programs
LAYOUTS = [16, 32]


def compile_ms(build, deck, per_axis):
    cmd = mpirun(2) + [str(build / "StandAlone" / "sus"), "--scheduler", "host", "--max-timesteps", "1",
            "--set", f"grid.level.patches=[{per_axis},{per_axis},{per_axis}]", str(deck)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    found = re.search(r"compiled in \S+ ms \(slowest rank ([0-9.e+-]+) ms\)", done.stdout)
    if done.returncode != 0 or not found:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return float(found.group(1))


def main():
    args = parser(__doc__).parse_args()
    require_programs(args.build, ["sus", "tessera-compile-bench"])
    samples = {n: [] for n in LAYOUTS}
    for _ in range(args.runs):
        for n in LAYOUTS:
            samples[n].append(compile_ms(args.build, args.deck, n))
    result = {"runs": args.runs, "ranks": 2, "sus": []}
    for n in LAYOUTS:
        row = {"patches": n ** 3, "layout": [n, n, n], "median_ms": statistics.median(samples[n]),
               "best_ms": min(samples[n]), "samples_ms": samples[n]}
        result["sus"].append(row)
        print(f"{n ** 3:>7} patches on 2 ranks: compile {row['median_ms']:.1f} ms median, "
              f"{row['best_ms']:.1f} ms best (slowest rank)")
    bench = subprocess.run([str(args.build / "StandAlone" / "tessera-compile-bench"), "--patches",
                            "100,100,100", "--ranks", "10000", "--rank", "4321", "--cells", "16"],
                           capture_output=True, text=True, timeout=900)
    if bench.returncode != 0:
        sys.exit(bench.stdout + bench.stderr)
    print(bench.stdout, end="")
    numbers = {key: float(value) for key, value in
               re.findall(r"^(build the grid|load balance \(SFC\)|record the tasks|compile rank \d+)"
                          r":?\s+([0-9.]+) ms", bench.stdout, re.M)}
    peak = re.search(r"peak memory ([0-9.]+) MB", bench.stdout)
    result["one_rank_of_10000"] = {"patches": 1000000, "ranks": 10000, "stages_ms": numbers,
                                   "peak_memory_mb": float(peak.group(1)) if peak else None,
                                   "output": bench.stdout}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "graph_compile.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out / 'graph_compile.json'}")


if __name__ == "__main__":
    main()
