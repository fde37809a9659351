"""The GEMM component (docs/gemm.md): C = alpha A B + beta C on 1 to 8
ranks (5 and 7 oversubscribed) for square, large-K, large-M, flat and
uneven shapes, checked against a reference dgemm; the words each rank
receives equal the planner's model exactly; the bits do not depend on the
rank count (integer-valued inputs: exact), the scheduler mode or the run;
memory-limited plans run in double-buffered rounds; bad decks are errors
naming the file, line and key.

usage: test_gemm.py --sus S --mpirun M [--mpirun-flag=F]... DECK
"""
import re
import sys

from sus_runner import Checks, Sus, parse_common_args

EXACT_CASES = [
    # (name, ranks, m, n, k, extra overrides). These sizes are small enough
    # that the planner would use fewer ranks (a rank's flops cost less than
    # the words it would receive): max_idle_ranks 0 makes every rank work,
    # except for the uneven shape, which shows idle ranks (4 of 5, 6 of 7).
    ("square", [1, 2, 4, 8], 128, 128, 128, ["gemm.max_idle_ranks=0"]),
    ("large-K", [3, 8], 32, 32, 4096, ["gemm.max_idle_ranks=0"]),
    ("large-M", [5, 6], 1024, 32, 32, ["gemm.max_idle_ranks=0"]),
    ("flat", [4, 7], 256, 256, 16, ["gemm.max_idle_ranks=0"]),
    ("uneven", [1, 5, 7], 1000, 999, 1001, []),
]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck = rest[0]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    exact(sus, deck, check)
    reals_and_modes(sus, deck, check)
    bad_decks(sus, deck, check)
    check.finish()


def gemm_run(sus, deck, ranks, sets, options=(), threads=1):
    return sus.run(deck, ranks=ranks, sets=sets, options=options, threads=threads, timeout=300)


def traffic_matches(run):
    return "gemm: the measured words equal the model on every rank" in run.stdout


def grid_of(run):
    found = re.search(r"^gemm: grid (\[[0-9, ]+\]) on (\d+) of (\d+) ranks, (\d+) round", run.stdout, re.M)
    return found.groups() if found else None


def exact(sus, deck, check):
    """Integer-valued inputs: every product and sum is exact, so C is the
    reference bit for bit and its digest is the same on any rank count."""
    print("integer-valued inputs, alpha 2, beta -3:")
    for name, ranks_list, m, n, k, extra in EXACT_CASES:
        digests = set()
        for ranks in ranks_list:
            sets = [f"gemm.m={m}", f"gemm.n={n}", f"gemm.k={k}", "gemm.alpha=2", "gemm.beta=-3", *extra]
            run = gemm_run(sus, deck, ranks, sets)
            label = f"{name} {m}x{n}x{k} on {ranks} rank(s)"
            ok = run.returncode == 0 and run.analysis.get("max error") == 0.0
            check(f"{label}: C equals the reference exactly", ok, run.describe())
            grid = grid_of(run)
            expected_used = ranks if extra else None
            check(f"{label}: the plan uses {'every rank' if extra else 'some ranks'}",
                  grid is not None and (expected_used is None or int(grid[1]) == expected_used),
                  str(grid))
            check(f"{label}: measured words equal the model on every rank", traffic_matches(run),
                  run.describe())
            digests.add(run.digests.get("C"))
            print(f"  {label}: grid {grid_of(run)}, digest {run.digests.get('C')}")
        check(f"{name}: one digest on {ranks_list} ranks", len(digests) == 1 and None not in digests,
              str(digests))


def reals_and_modes(sus, deck, check):
    """Real-valued inputs within 10 k eps of the reference; the same bits in
    every scheduler mode and run, with memory-limited (double-buffered)
    rounds and both local multiplies."""
    cases = [
        ("blas, unlimited memory", 4, ["gemm.m=300", "gemm.n=200", "gemm.k=500"]),
        ("blas, 8 rounds", 4, ["gemm.m=128", "gemm.n=128", "gemm.k=512", "gemm.memory_words=20000"]),
        ("kokkos, rounds", 3, ["gemm.m=96", "gemm.n=80", "gemm.k=300", "gemm.memory_words=12000",
                               "gemm.local=kokkos"]),
    ]
    for name, ranks, sizes in cases:
        sets = sizes + ["gemm.values=reals", "gemm.alpha=0.75", "gemm.beta=1.25", "time.max_timesteps=2"]
        digests = set()
        for mode in ("host", "sync", "async", "async"):
            run = gemm_run(sus, deck, ranks, sets, options=["--scheduler", mode], threads=2)
            label = f"reals, {name}, {mode} on {ranks} ranks"
            ok = (run.returncode == 0 and "relative error" in run.analysis
                  and run.analysis["relative error"] <= run.analysis["error bound"])
            check(f"{label}: relative error within 10 k eps", ok, run.describe())
            check(f"{label}: measured words equal the model", traffic_matches(run), run.describe())
            digests.add(run.digests.get("C"))
        grid = grid_of(run)
        print(f"  reals, {name}: grid {grid}, relative error {run.analysis.get('relative error')}")
        check(f"reals, {name}: one digest in every mode and run", len(digests) == 1 and None not in digests,
              str(digests))
        if "memory_words" in " ".join(sizes):
            check(f"reals, {name}: the memory limit splits k into rounds", grid and int(grid[3]) > 1, str(grid))


def bad_decks(sus, deck, check):
    cases = [
        (2, ["gemm.m=0"], r"gemm\.m.*out of range"),
        (2, ["gemm.memory_words=-5"], r"gemm\.memory_words.*out of range"),
        (2, ["gemm.memory_words=1000"], r"gemm\.memory_words: memory_words 1000 is too small.*the smallest that works is \d+"),
        (2, ["gemm.strategy=[2,2,1]"], r"gemm\.strategy: the grid \[2, 2, 1\] needs 4 ranks; the run has 2"),
        (2, ["gemm.m=1", "gemm.strategy=[2,1,1]"], r"gemm\.strategy: the grid \[2, 1, 1\] does not fit"),
        (2, ["gemm.strategy=summa"], r"gemm\.strategy.*expected one of cosma, 2d"),
        (2, ["gemm.local=cublas"], r"gemm\.local.*expected one of blas, kokkos"),
        (2, ["output.timestep_interval=1"], r"output.*not archived"),
    ]
    for ranks, sets, message in cases:
        run = gemm_run(sus, deck, ranks, sets)
        errors = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
        check(f"bad deck {' '.join(sets)}: exit 1, one message naming the deck and key",
              run.returncode == 1 and len(errors) == 1 and "gemm.yaml" in errors[0]
              and re.search(message, errors[0]) is not None, run.describe())


if __name__ == "__main__":
    main()
