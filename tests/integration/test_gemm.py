"""The GEMM component (docs/gemm.md): C = alpha A B + beta C on 1 to 8
ranks (5 and 7 oversubscribed) for square, large-K, large-M, flat and
uneven shapes, checked against a reference dgemm; the words each rank
receives equal the planner's model exactly; the bits do not depend on the
rank count (integer-valued inputs: exact), the scheduler mode or the run;
memory-limited plans run in double-buffered rounds; `strategy: 2d` uses
every rank with pk = 1 and gives the same bits; `verify: false` skips the
check and nothing else; bad decks are errors naming the file, line and key,
on 1 and 3 ranks.

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
# The ranks the planner uses for the uneven shape (the others idle).
UNEVEN_USED = {1: 1, 5: 4, 7: 6}


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck = rest[0]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    digests = exact(sus, deck, check)
    strategy_2d(sus, deck, digests, check)
    no_verify(sus, deck, check)
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
    reference bit for bit and its digest is the same on any rank count.
    Returns each shape's digest."""
    print("integer-valued inputs, alpha 2, beta -3:")
    shapes = {}
    for name, ranks_list, m, n, k, extra in EXACT_CASES:
        digests = set()
        for ranks in ranks_list:
            sets = [f"gemm.m={m}", f"gemm.n={n}", f"gemm.k={k}", "gemm.alpha=2", "gemm.beta=-3", *extra]
            run = gemm_run(sus, deck, ranks, sets)
            label = f"{name} {m}x{n}x{k} on {ranks} rank(s)"
            ok = run.returncode == 0 and run.analysis.get("max error") == 0.0
            check(f"{label}: C equals the reference exactly", ok, run.describe())
            grid = grid_of(run)
            used = ranks if extra else UNEVEN_USED[ranks]
            check(f"{label}: the plan uses {used} of the {ranks} ranks",
                  grid is not None and int(grid[1]) == used and int(grid[2]) == ranks, str(grid))
            check(f"{label}: measured words equal the model on every rank", traffic_matches(run),
                  run.describe())
            digests.add(run.digests.get("C"))
            print(f"  {label}: grid {grid_of(run)}, digest {run.digests.get('C')}")
        check(f"{name}: one digest on {ranks_list} ranks", len(digests) == 1 and None not in digests,
              str(digests))
        shapes[name] = digests.pop() if len(digests) == 1 else None
    return shapes


def strategy_2d(sus, deck, digests, check):
    """`strategy: 2d`: a SUMMA-like grid, pk = 1 on every rank (even where cosma makes
    K-slices or leaves ranks idle), with C exact, the words the model's and the digest cosma's."""
    cases = [("large-K", 4, 32, 32, 4096, "[2, 2, 1]"), ("large-K", 6, 32, 32, 4096, "[2, 3, 1]"),
             ("uneven", 5, 1000, 999, 1001, "[5, 1, 1]")]
    for name, ranks, m, n, k, want in cases:
        sets = [f"gemm.m={m}", f"gemm.n={n}", f"gemm.k={k}", "gemm.alpha=2", "gemm.beta=-3", "gemm.strategy=2d"]
        run = gemm_run(sus, deck, ranks, sets)
        grid = grid_of(run)
        check(f"strategy 2d, {name} {m}x{n}x{k} on {ranks} ranks: grid {want} on {ranks} of {ranks} ranks, "
              f"C exact, the model's words, cosma's digest",
              run.returncode == 0 and grid is not None and grid[:3] == (want, str(ranks), str(ranks))
              and run.analysis.get("max error") == 0.0 and traffic_matches(run)
              and run.digests.get("C") == digests.get(name) is not None,
              f"grid {grid}, digest {run.digests.get('C')} vs {digests.get(name)}\n{run.describe()}")


def no_verify(sus, deck, check):
    """`verify: false`: no reference dgemm and no error lines; the same C."""
    sets = ["gemm.m=96", "gemm.n=80", "gemm.k=300", "gemm.values=reals"]
    results = {verify: gemm_run(sus, deck, 3, sets + [f"gemm.verify={verify}"]) for verify in ("true", "false")}
    checked, unchecked = results["true"], results["false"]
    errors = ("max error", "relative error", "error bound")
    check("verify true (3 ranks): the error lines", checked.returncode == 0
          and all(key in checked.analysis for key in errors), checked.describe())
    check("verify false (3 ranks): exit 0, none of the error lines, the verified run's digest",
          unchecked.returncode == 0 and not any(key in unchecked.analysis for key in errors)
          and not re.search(r"error", unchecked.stdout) and traffic_matches(unchecked)
          and unchecked.digests.get("C") == checked.digests.get("C") is not None, unchecked.describe())


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
    # On 1 rank sus reports alone; on 3 rank 0 reports for every rank.
    cases = [
        (1, ["gemm.m=0"], r"gemm\.m.*out of range"),
        (3, ["gemm.memory_words=-5"], r"gemm\.memory_words.*out of range"),
        (1, ["gemm.memory_words=1000"], r"gemm\.memory_words: memory_words 1000 is too small.*the smallest that works is \d+"),
        (3, ["gemm.strategy=[2,2,1]"], r"gemm\.strategy: the grid \[2, 2, 1\] needs 4 ranks; the run has 3"),
        (1, ["gemm.strategy=[2,1,1]"], r"gemm\.strategy: the grid \[2, 1, 1\] needs 2 ranks; the run has 1"),
        (3, ["gemm.m=1", "gemm.strategy=[2,1,1]"], r"gemm\.strategy: the grid \[2, 1, 1\] does not fit"),
        (1, ["gemm.strategy=summa"], r"gemm\.strategy.*expected one of cosma, 2d"),
        (3, ["gemm.local=cublas"], r"gemm\.local.*expected one of blas, kokkos"),
        (3, ["gemm.verify=maybe"], r"gemm\.verify"),
    ]
    for ranks, sets, message in cases:
        run = gemm_run(sus, deck, ranks, sets)
        errors = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
        check(f"bad deck {' '.join(sets)} on {ranks} rank(s): exit 1, one message naming the deck and key",
              run.returncode == 1 and len(errors) == 1 and "gemm.yaml" in errors[0]
              and re.search(message, errors[0]) is not None, run.describe())


if __name__ == "__main__":
    main()
