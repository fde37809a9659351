#!/usr/bin/python3
"""What exact sums cost: Burgers' squared-error reduction (the L2 norm's
kernel) over 128^3 cells as a plain double sum and as an ExactSum, on 1 and
2 threads, with tessera-sum-bench. Each run times both sums --repeat times,
interleaved, and keeps the medians; the script interleaves the thread
counts over --runs runs and reports the median per run, nanoseconds per
cell, and the exact sum's cost relative to the double sum measured in the
same run. Writes exact_sum.json and exact_sum.png. A benchmark: it asserts
nothing.

usage: scripts/bench/exact_sum.py [--runs 5] [--cells 128] [--out bench-results]
"""
import json
import os
import statistics
import subprocess

from benchlib import parser, require_programs

THREADS = [1, 2]


def run_once(build, threads, cells, repeat):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
    done = subprocess.run([str(build / "StandAlone" / "tessera-sum-bench"), "--cells", str(cells),
                           "--repeat", str(repeat)], capture_output=True, text=True, env=env,
                          check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    args_parser = parser(__doc__, runs=5)
    args_parser.add_argument("--cells", type=int, default=128)
    args_parser.add_argument("--repeat", type=int, default=7)
    args = args_parser.parse_args()
    require_programs(args.build, ["tessera-sum-bench"])
    samples = {t: [] for t in THREADS}
    for _ in range(args.runs):
        for threads in THREADS:
            result = run_once(args.build, threads, args.cells, args.repeat)
            samples[threads].append(result)
    cells = args.cells ** 3
    table = []
    for threads in THREADS:
        plain = [statistics.median(s["double_seconds"]) for s in samples[threads]]
        exact = [statistics.median(s["exact_seconds"]) for s in samples[threads]]
        ratio = [e / p for e, p in zip(exact, plain)]
        table.append({
            "threads": threads,
            "double_ns_per_cell": statistics.median(plain) / cells * 1e9,
            "exact_ns_per_cell": statistics.median(exact) / cells * 1e9,
            "exact_over_double": statistics.median(ratio),
            "double_value": samples[threads][-1]["double_value"],
            "exact_value": samples[threads][-1]["exact_value"],
        })
    args.out.mkdir(parents=True, exist_ok=True)
    record = {"cells": cells, "runs": args.runs, "repeat": args.repeat, "results": table}
    (args.out / "exact_sum.json").write_text(json.dumps(record, indent=2) + "\n")
    print("| threads | double sum, ns/cell | exact sum, ns/cell | exact / double (median of per-run ratios) |")
    print("|---|---|---|---|")
    for row in table:
        print(f"| {row['threads']} | {row['double_ns_per_cell']:.2f} | {row['exact_ns_per_cell']:.2f} | "
              f"{row['exact_over_double']:.2f} |")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axis = plt.subplots(figsize=(5, 3.5))
        width = 0.35
        positions = range(len(table))
        axis.bar([p - width / 2 for p in positions], [r["double_ns_per_cell"] for r in table], width,
                 label="double (Kokkos::Sum<double>)")
        axis.bar([p + width / 2 for p in positions], [r["exact_ns_per_cell"] for r in table], width,
                 label="exact (Kokkos::Sum<ExactSum>)")
        axis.set_xticks(list(positions), [f"{r['threads']} thread(s)" for r in table])
        axis.set_ylabel("ns per cell")
        axis.set_title(f"Burgers squared-error sum, {args.cells}^3 cells")
        axis.legend()
        figure.tight_layout()
        figure.savefig(args.out / "exact_sum.png", dpi=120)
    except ImportError:
        print("matplotlib is missing: no chart")


if __name__ == "__main__":
    main()
