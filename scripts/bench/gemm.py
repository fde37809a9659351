#!/usr/bin/python3
"""Distributed GEMM: Tessera's C = alpha A B + beta C (doubles) against
OpenBLAS in one process and ScaLAPACK's pdgemm on 2 ranks, measured in one
invocation, and the bytes Tessera's ranks receive against its model.

Three shapes (m x n x k; --small divides every dimension by 4):
  square   4096 x 4096 x 4096
  large-K  1024 x 1024 x 16384
  flat     4096 x 4096 x 256
On each, once per round:
  gemm-openblas: OpenBLAS's cblas_dgemm in one process, 2 threads
      (OPENBLAS_NUM_THREADS=2; StandAlone/reference/);
  gemm-scalapack: ScaLAPACK's pdgemm on 2 ranks (mpirun --bind-to none, 1
      thread each, the default 1 x 2 process grid), block sizes 128 and 256;
      the faster of the two (by median) is ScaLAPACK's figure, both are
      reported. Its --check compares sampled entries with the exact product
      (they must agree exactly: the fills are small integers);
  sus on inputs/Gemm/gemm.yaml with gemm.verify=false and
      time.max_timesteps=6 (one multiplication per timestep, the first left
      out of sus's rate): 1 rank with 2 threads (OMP_NUM_THREADS and
      OPENBLAS_NUM_THREADS 2, --bind-to none) and 2 ranks with 1 thread each
      (--bind-to core).
The two reference programs time 5 multiplications after a warm-up and report
their median; sus reports GFLOP/s over its 5 timed ones. The rate is
2 m n k / seconds per multiplication. The runs are interleaved (every
configuration once per round) so that a noisy neighbour slows all of them
alike; the table gives the median (and the JSON the best) of --runs rounds.

Once per shape, after the rounds, sus also runs one timestep on 4 and 8
ranks (oversubscribed, --bind-to none, 1 thread each) for the words it
receives per rank per multiplication, measured (the largest over the ranks)
and as its communication model predicts; the 2-rank figures come from the
timed runs. Reported as bytes (8 per word). ScaLAPACK's are not measured.

Writes gemm.json (every run's numbers, medians) and, with matplotlib
(Debian: python3-matplotlib), a PNG bar chart gemm.png into --out, and
prints a markdown table for docs/benchmarks.md. Needs gemm-openblas,
gemm-scalapack (Debian: libscalapack-openmpi-dev, scripts/install-deps
--bench) and sus in --build.

usage: scripts/bench/gemm.py [--runs 5] [--out bench-results] [--build build]
       scripts/bench/gemm.py --small --runs 1     (every dimension / 4: a smoke test)
       scripts/bench/gemm.py --only references    (OpenBLAS and ScaLAPACK only)
A benchmark, not a test: it asserts nothing about time. It exits non-zero
when a program fails, prints no figures, or ScaLAPACK's check finds an error.
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

GEMM_DECK = ROOT / "inputs" / "Gemm" / "gemm.yaml"
# (name, m, n, k)
SHAPES = [("square", 4096, 4096, 4096), ("large-K", 1024, 1024, 16384),
          ("flat", 4096, 4096, 256)]
SMALL_DIVISOR = 4
OPENBLAS_THREADS = 2
SCALAPACK_RANKS = 2
BLOCK_SIZES = [128, 256]
REFERENCE_RUNS = 5  # timed multiplications per reference run, after a warm-up
TESSERA_TIMESTEPS = 6  # one multiplication each; sus leaves the first out
TESSERA_RANKS = [1, 2]  # timed
BYTES_RANKS = [4, 8]  # one timestep, words only
BYTES_PER_WORD = 8
TIMEOUT = 1800

NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
RATE_LINE = re.compile(rf"gemm: {NUMBER} GFLOP/s, {NUMBER} s per multiply "
                       rf"\((\d+) multiplies timed")
WORDS_LINE = re.compile(rf"gemm: words received per rank per multiply: measured max {NUMBER}, "
                        rf"model max {NUMBER}, lower bound {NUMBER}")
GRID_LINE = re.compile(r"gemm: grid \[\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\] on (\d+) of (\d+) "
                       r"ranks, (\d+) round")


def rel(path):
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def run(cmd, env, cwd, what):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        sys.exit(f"{what} took more than {TIMEOUT} s: {' '.join(cmd)}")
    if done.returncode != 0:
        sys.exit(f"{what} failed (exit {done.returncode}): {' '.join(cmd)}\n"
                 f"{done.stdout}\n{done.stderr}")
    return done.stdout


def json_line(stdout, cmd, what):
    """The one JSON line a reference program prints."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    sys.exit(f"{what}: no JSON line in the output of {' '.join(cmd)}:\n{stdout}")


def run_openblas(args, tmp, shape):
    _, m, n, k = shape
    cmd = [str(args.build / "StandAlone" / "gemm-openblas"), "--m", str(m), "--n", str(n),
           "--k", str(k), "--runs", str(REFERENCE_RUNS)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(OPENBLAS_THREADS),
               OMP_NUM_THREADS=str(OPENBLAS_THREADS))
    result = json_line(run(cmd, env, tmp, "gemm-openblas"), cmd, "gemm-openblas")
    if result.get("threads") != OPENBLAS_THREADS:
        sys.exit(f"gemm-openblas ran on {result.get('threads')} threads, not {OPENBLAS_THREADS}")
    return result


def run_scalapack(args, tmp, shape, nb):
    _, m, n, k = shape
    cmd = mpirun(SCALAPACK_RANKS, bind="none") + [
        str(args.build / "StandAlone" / "gemm-scalapack"), "--m", str(m), "--n", str(n),
        "--k", str(k), "--nb", str(nb), "--runs", str(REFERENCE_RUNS), "--check"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    result = json_line(run(cmd, env, tmp, "gemm-scalapack"), cmd, "gemm-scalapack")
    if result.get("check_max_error") != 0.0:
        sys.exit(f"gemm-scalapack's check failed (max error {result.get('check_max_error')}): "
                 f"{' '.join(cmd)}")
    return result


def run_sus(args, tmp, shape, ranks, timesteps):
    """sus's gemm lines (and a few fields of its run record) as a dict; the
    rate only when timesteps > 1."""
    name, m, n, k = shape
    record = tmp / f"record-{name}-{ranks}.json"
    if ranks == 1:
        threads, bind = 2, "none"
    elif timesteps > 1:
        threads, bind = 1, "core"
    else:
        threads, bind = 1, "none"
    cmd = mpirun(ranks, bind=bind) + [
        str(args.build / "StandAlone" / "sus"), "--record", str(record),
        "--set", f"gemm.m={m}", "--set", f"gemm.n={n}", "--set", f"gemm.k={k}",
        "--set", "gemm.verify=false", "--set", f"time.max_timesteps={timesteps}",
        # What the reference programs compute: C = A B.
        "--set", "gemm.alpha=1", "--set", "gemm.beta=0"]
    if args.scheduler:
        cmd += ["--scheduler", args.scheduler]
    cmd.append(str(args.deck))
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               OMP_PROC_BIND="false")
    what = f"sus's gemm ({name}, {ranks} rank(s))"
    stdout = run(cmd, env, tmp, what)
    words = WORDS_LINE.search(stdout)
    grid = GRID_LINE.search(stdout)
    result = {}
    if words and grid:
        result.update(
            words_measured_max=float(words.group(1)), words_model_max=float(words.group(2)),
            words_lower_bound=float(words.group(3)),
            grid=[int(grid.group(i)) for i in (1, 2, 3)], ranks_used=int(grid.group(4)),
            ranks=int(grid.group(5)), rounds=int(grid.group(6)))
    elif ranks > 1:  # one rank receives nothing: the lines are not needed there
        sys.exit(f"{what}: no 'gemm: words received ...' or 'gemm: grid ...' line in the output "
                 f"of {' '.join(cmd)}:\n{stdout}")
    if timesteps > 1:
        rate = RATE_LINE.search(stdout)
        if not rate:
            sys.exit(f"{what}: no 'gemm: ... GFLOP/s' line in the output of "
                     f"{' '.join(cmd)}:\n{stdout}")
        result.update(gflops=float(rate.group(1)), seconds_per_multiply=float(rate.group(2)),
                      multiplies_timed=int(rate.group(3)))
    try:
        full = json.loads(record.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"{what}: cannot read its run record {record}: {error}")
    record.unlink()
    result["record"] = {key: full.get(key) for key in
                        ("ranks", "threads_per_rank", "scheduler", "timesteps", "wall_seconds",
                         "peak_memory_bytes")}
    return result


def stats_of(values, best=max):
    """Median, best (max for rates, min for times) and the samples."""
    return {"median": statistics.median(values), "best": best(values), "samples": values}


def megabytes(words):
    return f"{words * BYTES_PER_WORD / 1e6:.3g} MB"


def chart(summary, path):
    plt = pyplot()
    if plt is None:
        return False
    series = []
    if summary["references"]:
        series += [("OpenBLAS, 1 process x 2 threads", lambda s: s["openblas"]["gflops"]),
                   ("ScaLAPACK, 2 ranks (best nb)", lambda s: s["scalapack"]["best"]["gflops"])]
    if summary["tessera"]:
        series += [("Tessera, 1 rank x 2 threads", lambda s: s["tessera"]["1"]["gflops"]),
                   ("Tessera, 2 ranks", lambda s: s["tessera"]["2"]["gflops"])]
    shapes = summary["shapes"]
    fig, ax = plt.subplots(figsize=(8, 4.8))
    width = 0.8 / len(series)
    for n, (label, get) in enumerate(series):
        xs = bar_positions(len(shapes), len(series), n, width)
        medians = [get(s)["median"] for s in shapes]
        ax.bar(xs, medians, width, label=label)
        ax.scatter(xs, [get(s)["best"] for s in shapes], marker="_", color="black", zorder=3)
        for x, value in zip(xs, medians):
            ax.annotate(f"{value:.1f}", (x, value), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([f"{s['name']}\n{s['m']} x {s['n']} x {s['k']}" for s in shapes],
                       fontsize=8)
    ax.set_ylabel("GFLOP/s (2 m n k / s)")
    ax.set_title(f"C = A B, doubles: median of {summary['runs']} interleaved runs (- best)",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    options = parser(__doc__)
    options.set_defaults(deck=GEMM_DECK)
    options.add_argument("--small", action="store_true",
                         help=f"every dimension divided by {SMALL_DIVISOR} (a quick run)")
    options.add_argument("--only", choices=["references", "tessera"],
                         help="run only OpenBLAS and ScaLAPACK, or only sus")
    options.add_argument("--scheduler", choices=["host", "sync", "async"],
                         help="sus's scheduler (default: the deck's)")
    args = options.parse_args()
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    references = args.only != "tessera"
    tessera = args.only != "references"
    shapes = [(name, m // SMALL_DIVISOR, n // SMALL_DIVISOR, k // SMALL_DIVISOR)
              if args.small else (name, m, n, k) for name, m, n, k in SHAPES]
    programs = (["gemm-openblas", "gemm-scalapack"] if references else []) + (
        ["sus"] if tessera else [])
    for program in programs:
        if not (args.build / "StandAlone" / program).exists():
            sys.exit(f"{args.build / 'StandAlone' / program} not found: build it first "
                     f"(cmake --build {args.build} --target {' '.join(programs)}, or bench-tools; "
                     "gemm-scalapack needs libscalapack-openmpi-dev: scripts/install-deps --bench)")
    if tessera and not args.deck.exists():
        sys.exit(f"{args.deck} not found: sus's gemm deck is missing "
                 "(--only references runs OpenBLAS and ScaLAPACK alone)")

    openblas = {s[0]: [] for s in shapes}
    scalapack = {(s[0], nb): [] for s in shapes for nb in BLOCK_SIZES}
    sus = {(s[0], ranks): [] for s in shapes for ranks in TESSERA_RANKS}
    words = {}
    with tempfile.TemporaryDirectory(prefix="tessera-gemm-bench-") as scratch:
        tmp = pathlib.Path(scratch)
        for round_ in range(args.runs):
            for shape in shapes:
                if references:
                    openblas[shape[0]].append(run_openblas(args, tmp, shape))
                    for nb in BLOCK_SIZES:
                        scalapack[(shape[0], nb)].append(run_scalapack(args, tmp, shape, nb))
                if tessera:
                    for ranks in TESSERA_RANKS:
                        sus[(shape[0], ranks)].append(
                            run_sus(args, tmp, shape, ranks, TESSERA_TIMESTEPS))
            print(f"round {round_ + 1}/{args.runs} done", flush=True)
        if tessera:
            for shape in shapes:
                for ranks in BYTES_RANKS:
                    words[(shape[0], ranks)] = run_sus(args, tmp, shape, ranks, 1)
            print("sus on " + " and ".join(map(str, BYTES_RANKS)) + " ranks (words only) done",
                  flush=True)

    summary = {
        "small": args.small, "runs": args.runs, "deck": rel(args.deck),
        "references": references, "tessera": tessera,
        "gflops": "2 m n k / seconds per multiplication (C = A B, doubles)",
        "openblas": f"gemm-openblas, 1 process, OPENBLAS_NUM_THREADS={OPENBLAS_THREADS}; "
                    f"each run the median of {REFERENCE_RUNS} timed calls after a warm-up",
        "scalapack": f"gemm-scalapack (pdgemm), {SCALAPACK_RANKS} ranks, mpirun --bind-to none, "
                     f"1 thread each, block sizes {BLOCK_SIZES}; each run the median of "
                     f"{REFERENCE_RUNS} timed calls (slowest rank) after a warm-up",
        "sus": f"gemm.verify=false, time.max_timesteps={TESSERA_TIMESTEPS} (the first left out "
               "of sus's rate); 1 rank: OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=2, --bind-to none; "
               "2 ranks: 1 thread each, --bind-to core; words on "
               f"{BYTES_RANKS} ranks from one timestep, oversubscribed, --bind-to none",
        "bytes_per_word": BYTES_PER_WORD, "shapes": []}
    for name, m, n, k in shapes:
        row = {"name": name, "m": m, "n": n, "k": k}
        if references:
            row["openblas"] = {"gflops": stats_of([r["gflops"] for r in openblas[name]]),
                               "runs": openblas[name]}
            by_nb = {}
            for nb in BLOCK_SIZES:
                by_nb[str(nb)] = {"gflops": stats_of([r["gflops"] for r in scalapack[(name, nb)]]),
                                  "runs": scalapack[(name, nb)]}
            best_nb = max(BLOCK_SIZES, key=lambda nb: by_nb[str(nb)]["gflops"]["median"])
            row["scalapack"] = {"by_nb": by_nb, "best_nb": best_nb,
                                "best": by_nb[str(best_nb)]}
        if tessera:
            row["tessera"] = {}
            for ranks in TESSERA_RANKS:
                samples = sus[(name, ranks)]
                row["tessera"][str(ranks)] = {
                    "gflops": stats_of([s["gflops"] for s in samples]),
                    "seconds_per_multiply": stats_of([s["seconds_per_multiply"] for s in samples], min),
                    "runs": samples}
            row["tessera_words"] = {"2": {key: sus[(name, 2)][-1][key] for key in
                                          ("words_measured_max", "words_model_max",
                                           "words_lower_bound", "grid", "ranks_used", "rounds")}}
            for ranks in BYTES_RANKS:
                row["tessera_words"][str(ranks)] = words[(name, ranks)]
            if references:
                two = row["tessera"]["2"]["gflops"]["median"]
                row["tessera_2_ranks_over_openblas"] = two / row["openblas"]["gflops"]["median"]
                row["tessera_2_ranks_over_scalapack"] = (
                    two / row["scalapack"]["best"]["gflops"]["median"])
        summary["shapes"].append(row)

    def cell(row, *keys, fmt="{:.1f}"):
        value = row
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                return "-"
            value = value[key]
        return fmt.format(value)

    print(f"\nC = A B in doubles, GFLOP/s (2 m n k / s), median of {args.runs} interleaved "
          "runs; bytes received per rank per multiplication: measured max / model\n")
    print("| shape (m x n x k) | OpenBLAS, 2 threads | ScaLAPACK best, 2 ranks (nb) | "
          "Tessera 1 rank | Tessera 2 ranks | Tessera 2 ranks / OpenBLAS | "
          "Tessera 2 ranks / ScaLAPACK | " +
          " | ".join(f"bytes/rank p={p}" for p in [2] + BYTES_RANKS) + " |")
    print("|---|---|---|---|---|---|---|" + "---|" * (1 + len(BYTES_RANKS)))
    for row in summary["shapes"]:
        scalapack_cell = "-"
        if "scalapack" in row:
            others = ", ".join(f"{nb}: {row['scalapack']['by_nb'][str(nb)]['gflops']['median']:.1f}"
                               for nb in BLOCK_SIZES if nb != row["scalapack"]["best_nb"])
            scalapack_cell = (f"{row['scalapack']['best']['gflops']['median']:.1f} "
                              f"({row['scalapack']['best_nb']}; {others})")
        byte_cells = []
        for p in [2] + BYTES_RANKS:
            w = row.get("tessera_words", {}).get(str(p))
            byte_cells.append(f"{megabytes(w['words_measured_max'])} / "
                              f"{megabytes(w['words_model_max'])}" if w else "-")
        print(f"| {row['name']} {row['m']} x {row['n']} x {row['k']} | "
              f"{cell(row, 'openblas', 'gflops', 'median')} | {scalapack_cell} | "
              f"{cell(row, 'tessera', '1', 'gflops', 'median')} | "
              f"{cell(row, 'tessera', '2', 'gflops', 'median')} | "
              f"{cell(row, 'tessera_2_ranks_over_openblas', fmt='{:.2f}')} | "
              f"{cell(row, 'tessera_2_ranks_over_scalapack', fmt='{:.2f}')} | "
              + " | ".join(byte_cells) + " |")
    print()
    write_results(args.out, "gemm", summary, chart)


if __name__ == "__main__":
    main()
