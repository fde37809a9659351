"""A deck gives bitwise the same fields, and the same analysis results (exact
sums, printed to the last digit), for any rank count (1 to 16, 8 and 16
oversubscribed), load balancer, patch layout, scheduler mode (host, sync,
async), tiled or not, tile shape, cache blocks, streaming stores or not,
thread count (1 and 2 device threads per rank), and with or without patch
groups. The layouts assume 32 cells along each axis (16 work too: the
jacobi deck).

usage: test_digest_invariance.py --sus S --mpirun M [--mpirun-flag F]... DECK [--quick] [--set K=V]...

--set applies to every run (e.g. the stencil's radius); --quick runs a
dozen configurations that still cover ranks, modes, tiling, threads and
uneven layouts.

No row repeats another: the example decks' mode is async (named or by
default) and patch groups are on in every mode by default, so a row that
only names those settings is the plain row again.
"""
import sys

from sus_runner import Sus, parse_common_args

CONFIGURATIONS = [
    # (ranks, extra deck settings)
    (1, []),
    (2, []),
    (4, []),
    (2, ["load_balancer.type=round_robin"]),
    (4, ["load_balancer.type=round_robin"]),
    (3, ["load_balancer.curve=morton"]),
    # More ranks than cores (oversubscribed): 30 patches of unequal sizes
    # on 8 ranks (3 or 4 each, by the SFC), 32 on 16 (2 each, round robin)
    # in sync (no control thread: 16 ranks keep at most 16 cores busy).
    (8, ["grid.level.patches=[3,2,5]"]),
    (16, ["grid.level.patches=[4,4,2]", "load_balancer.type=round_robin", "scheduler.type=sync"]),
    # Uneven layouts: 32 cells over 3 and 5 patches.
    (1, ["grid.level.patches=[3,1,5]"]),
    (2, ["grid.level.patches=[3,1,5]"]),
    (4, ["grid.level.patches=[3,2,5]", "load_balancer.type=round_robin"]),
    (3, ["grid.level.patches=[1,1,1]"]),
    (2, ["scheduler.rebuild_every_timestep=true"]),
    # Scheduler modes (the rows above run the decks' async): all three block
    # their stencils for the cache on a CPU.
    (1, ["scheduler.type=host"]),
    (1, ["scheduler.type=sync"]),
    (2, ["scheduler.type=sync"]),
    (4, ["scheduler.type=sync"]),
    # Tile shapes: explicit ones (some not dividing the patches), and the
    # automatic choice under smaller and larger scratchpads.
    (1, ["scheduler.type=async", "scheduler.tile=[1,1,1]"]),
    (1, ["scheduler.type=sync", "scheduler.tile=[16,2,3]"]),
    (2, ["scheduler.type=async", "scheduler.tile=[4,4,4]"]),
    (2, ["scheduler.type=async", "scheduler.tile=[5,3,7]"]),
    (4, ["scheduler.type=async", "scheduler.tile=[5,3,7]", "grid.level.patches=[3,2,5]"]),
    (2, ["scheduler.type=async", "scheduler.scratchpad_bytes=4096"]),
    (2, ["scheduler.type=sync", "scheduler.scratchpad_bytes=1048576"]),
    # Patch groups off (they are on by default in every mode).
    (1, ["scheduler.patch_groups=false", "scheduler.type=host"]),
    (3, ["scheduler.patch_groups=false", "grid.level.patches=[3,2,5]", "scheduler.type=host"]),
    # Untiled kernels, in every mode.
    (2, ["scheduler.type=async", "scheduler.tiling=false"]),
    (1, ["scheduler.type=sync", "scheduler.tiling=false"]),
    (1, ["scheduler.type=host", "scheduler.tiling=false"]),
    # Streaming stores where kernels write whole rows (off by default), and
    # cache blocks of a few rows (the PRK's 3D sweep blocks where its planes
    # do not fit scheduler.cache_bytes).
    (1, ["scheduler.streaming_stores=true"]),
    (2, ["scheduler.type=host", "scheduler.cache_bytes=4096"]),
    # async with its control thread at work during kernels, and without.
    (2, ["scheduler.type=async", "scheduler.control_thread=always"]),
    (3, ["scheduler.type=async", "scheduler.control_thread=never"]),
    # One rank of one thread, patch by patch: where the machine has a
    # second core, the control thread spins on it and makes the local ghost
    # copies while kernels run.
    (1, ["scheduler.type=async", "scheduler.patch_groups=false"]),
]

# The quick list oversubscribes 8 ranks, not 16: a 16-rank start costs 2.4 s
# here (Open MPI's start-up, per rank), and the full lists run 16 ranks.
QUICK = [
    (1, []),
    (2, []),
    (4, ["grid.level.patches=[3,2,5]", "load_balancer.type=round_robin"]),
    (8, ["grid.level.patches=[3,2,5]"]),
    (2, ["grid.level.patches=[3,1,5]"]),
    (1, ["scheduler.type=host"]),
    (2, ["scheduler.type=sync"]),
    (2, ["scheduler.type=async", "scheduler.tiling=false"]),
    (2, ["scheduler.type=async", "scheduler.tile=[5,3,7]"]),
    (1, ["scheduler.patch_groups=false", "scheduler.type=host"]),
    (2, ["scheduler.type=async", "scheduler.control_thread=always"]),
    (1, ["scheduler.type=async", "scheduler.patch_groups=false"]),
    (1, ["scheduler.streaming_stores=true"]),
    (2, ["scheduler.type=host", "scheduler.cache_bytes=4096"]),
]
QUICK_THREADED = [
    (1, ["scheduler.type=async"]),
    (2, ["scheduler.type=host", "grid.level.patches=[3,1,5]"]),
]

# Two device threads per rank: threaded stencils, tiles shared out, and
# reductions whose per-thread partials join in any order.
THREADED = [
    (1, ["scheduler.type=host"]),
    (1, ["scheduler.type=sync"]),
    (1, ["scheduler.type=async"]),
    (2, ["scheduler.type=async"]),
    (2, ["scheduler.type=host", "grid.level.patches=[3,1,5]"]),
    (1, ["scheduler.type=async", "scheduler.tile=[4,4,4]", "grid.level.patches=[1,1,1]"]),
]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, quick, base = rest[0], "--quick" in rest, []
    it = iter(rest[1:])
    for arg in it:
        if arg == "--set":
            base.append(next(it))
    sus = Sus(sus_path, mpirun, flags)
    reference = None
    failures = 0
    plain, threaded = (QUICK, QUICK_THREADED) if quick else (CONFIGURATIONS, THREADED)
    cases = [(ranks, sets, 1) for ranks, sets in plain] + [(ranks, sets, 2) for ranks, sets in threaded]
    print(f"{deck} {' '.join(base)}")
    for ranks, sets, threads in cases:
        run = sus.run(deck, ranks=ranks, sets=[*base, *sets], threads=threads,
                      options=["--nthreads", str(threads)])
        name = f"{ranks} rank(s) x {threads} thread(s) {' '.join(sets) or '(deck as is)'}"
        if run.returncode != 0 or not run.digests or not run.analysis:
            print(f"FAIL {name}: {run.describe()}")
            failures += 1
            continue
        result = (run.digests, run.analysis)
        if reference is None:
            reference = result
        same = result == reference
        failures += 0 if same else 1
        print(f"{'ok  ' if same else 'FAIL'} {name}: {run.digests} {run.analysis}")
    print(f"{len(cases) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
