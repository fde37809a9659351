"""Faults on one rank end the whole job promptly with one message and the
documented exit code, and what was written before stays usable.

Each case runs on 1, 2 and 3 ranks (3 ranks with 2 patches leaves a rank
without patches) under a timeout that only a hang reaches, and checks the
exit code (no signal), that the error is printed exactly once, and where it
matters that the earlier checkpoints restart to the digest of a clean run.
The I/O faults come from the test-only hook TESSERA_TEST_IO_FAULT
(Core/IO/FaultInjection.h): OPERATION:FILE:RANK.

usage: test_faults.py --sus S --mpirun M [--mpirun-flag=F]... DECK WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import pathlib
import re
import shutil
import struct
import sys

from sus_runner import Checks, Sus, load_index, parse_common_args, fresh_directory

SMALL = ["grid.level.resolution=[16,16,16]", "time.max_timesteps=6", "time.max_time=1.0"]
OUTPUT_EACH_STEP = ["output.timestep_interval=1"]
CHECKPOINTS = ["checkpoint.timestep_interval=2", "checkpoint.cycle=5"]
HANG_LIMIT = 120  # seconds: far beyond any case, reached only by a hang


def count_lines(text, pattern):
    return len(re.findall(pattern, text, re.M))


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, work = rest[0], pathlib.Path(rest[1])
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    with fresh_directory(work):
        run_checks(sus, deck, work, check)
    check.finish()


def run_in(sus, work, name, ranks, sets=(), options=(), env=None, deck=None):
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    return sus.run(deck, ranks=ranks, sets=sets, options=options, env=env, cwd=folder,
                   timeout=HANG_LIMIT), folder


def expect_failure(check, name, run, code, pattern):
    """Exit `code` (not a signal), the error exactly once, matching `pattern`."""
    check(f"{name}: exit {code}", run.returncode == code, run.describe())
    errors = count_lines(run.stderr, r"^sus: (error|runtime failure)")
    check(f"{name}: one error message (got {errors})", errors == 1, run.stderr)
    check(f"{name}: the message names the cause", re.search(pattern, run.stderr), run.stderr)


def run_checks(sus, deck, work, check):
    # A clean run: the digest every restart below must reach.
    clean, _ = run_in(sus, work, "clean", 1, SMALL, deck=deck)
    check("clean run succeeds", clean.returncode == 0, clean.describe())
    clean_digest = clean.digests.get("u")

    for ranks in (1, 2, 3):
        faulty_rank = ranks - 1
        # Full disk while writing an output (the rank writing fails after the
        # collective write returned), a checkpoint, at close, at the flush.
        cases = [
            ("write of output t00003", f"write:t00003.h5:{faulty_rank}"),
            ("write of checkpoint t00004", f"write:checkpoints/t00004:{faulty_rank}"),
            ("create of output t00003", f"create:t00003.h5:{faulty_rank}"),
            ("close of checkpoint t00004", f"close:checkpoints/t00004:{faulty_rank}"),
            ("flush of output t00003", "sync:t00003.h5:0"),
            ("no space for checkpoint t00004", "space:checkpoints/t00004:0"),
        ]
        for what, fault in cases:
            name = f"{what}, {ranks} rank(s)"
            folder_name = f"io-{ranks}-{fault.split(':')[0]}-{len(check.results)}"
            run, folder = run_in(sus, work, folder_name, ranks, SMALL + OUTPUT_EACH_STEP + CHECKPOINTS,
                                 deck=deck, env={"TESSERA_TEST_IO_FAULT": fault})
            expect_failure(check, name, run, 2,
                           r"injected by TESSERA_TEST_IO_FAULT|no space left for")
            run_dir = folder / "burgers.tsa.000"
            leftovers = sorted(p.name for p in run_dir.rglob("*.tmp"))
            check(f"{name}: no temporary file left", not leftovers, str(leftovers))
            index = load_index(run_dir / "index.yaml")
            check(f"{name}: the index lists only complete files",
                  all((run_dir / e[3]).is_file() for e in index["outputs"] + index["checkpoints"]),
                  str(index))
            # The earlier checkpoint restarts to the clean run's digest.
            if index["checkpoints"]:
                restarted, _ = run_in(sus, work, folder_name, ranks,
                                      options=["--restart", str(run_dir)])
                check(f"{name}: the earlier checkpoint restarts to the clean digest",
                      restarted.returncode == 0 and restarted.digests.get("u") == clean_digest,
                      restarted.describe())
            shutil.rmtree(folder, ignore_errors=True)

        # A read that fails on one rank: the restart falls back to the older
        # checkpoint on every rank, and ends on the clean digest.
        folder_name = f"read-{ranks}"
        straight, folder = run_in(sus, work, folder_name, ranks, SMALL + CHECKPOINTS, deck=deck)
        check(f"run for the read fault, {ranks} rank(s)", straight.returncode == 0,
              straight.describe())
        run_dir = folder / "burgers.tsa.000"
        restarted, _ = run_in(sus, work, folder_name, ranks, options=["--restart", str(run_dir)],
                              env={"TESSERA_TEST_IO_FAULT": f"read:t00006:{faulty_rank}"})
        check(f"read fault on rank {faulty_rank} of {ranks}: restart succeeds on the older checkpoint",
              restarted.returncode == 0 and restarted.digests.get("u") == clean_digest,
              restarted.describe())
        index = load_index(folder / "burgers.tsa.001" / "index.yaml")
        check(f"read fault, {ranks} rank(s): restarted from t00004",
              index.get("restarted_from", "").endswith("checkpoints/t00004.h5"), str(index))
        shutil.rmtree(folder, ignore_errors=True)

        # Errors found on rank 0 only, or only on ranks that own patches.
        missing = work / "no-such-dir"
        run, _ = run_in(sus, work, f"stats-{ranks}", ranks, SMALL,
                        options=["--stats", str(missing / "stats.json")], deck=deck)
        expect_failure(check, f"unwritable --stats, {ranks} rank(s)", run, 1,
                       r"cannot write statistics to .*stats\.json")
        run, _ = run_in(sus, work, f"graph-{ranks}", ranks, SMALL,
                        options=["--emit-taskgraph", str(missing / "graph.dot")], deck=deck)
        expect_failure(check, f"unwritable --emit-taskgraph, {ranks} rank(s)", run, 1,
                       r"graph\.dot")
        run, _ = run_in(sus, work, f"trace-{ranks}", ranks, SMALL,
                        options=["--trace", str(missing / "trace.json")], deck=deck)
        expect_failure(check, f"unwritable --trace, {ranks} rank(s)", run, 1, r"trace\.json")
        run, _ = run_in(sus, work, f"tile-{ranks}", ranks,
                        SMALL + ["grid.level.patches=[2,1,1]", "scheduler.tile=[16,16,16]"],
                        deck=deck)
        expect_failure(check, f"scheduler.tile too large, {ranks} rank(s) (2 patches)", run, 1,
                       r"tile.*scratch")
        shutil.rmtree(work / f"stats-{ranks}", ignore_errors=True)

    # The watchdog through sus: with scheduler.watchdog_seconds at 1 ns, the
    # first wait for a message or a reduction on 2 ranks fires it. The rank
    # that fires reports once (not twice) and aborts the job with code 2.
    run, _ = run_in(sus, work, "watchdog", 2,
                    SMALL + ["scheduler.type=host", "scheduler.watchdog_seconds=1e-9"], deck=deck)
    check("watchdog: exit 2", run.returncode == 2, run.describe())
    # Not anchored to a line start: mpirun forwards each rank's stderr as it
    # comes, so another rank's output may precede a report on its line.
    reports = re.findall(r"sus: runtime failure on rank (\d+): watchdog: no progress for 1e-09 s",
                         run.stderr)
    check("watchdog: the report names the limit and the rank", reports, run.stderr)
    check("watchdog: each rank reports at most once", len(reports) == len(set(reports)),
          run.stderr)
    check("watchdog: the report says what the rank waits for",
          re.search(r"waits for|reduction|message from rank", run.stderr), run.stderr)

    # Corrupt metadata: a checkpoint whose time attribute was changed is
    # unusable (named), and the restart falls back to the one before.
    straight, folder = run_in(sus, work, "metadata", 2, SMALL + CHECKPOINTS, deck=deck)
    run_dir = folder / "burgers.tsa.000"
    index = load_index(run_dir / "index.yaml")
    newest = run_dir / index["checkpoints"][-1][3]
    data = bytearray(newest.read_bytes())
    old_time = struct.pack("<d", index["checkpoints"][-1][1])
    found = data.count(old_time)
    check("the newest checkpoint holds its time once", found == 1, f"{found} occurrences")
    if found == 1:
        at = data.find(old_time)
        data[at:at + 8] = struct.pack("<d", index["checkpoints"][-1][1] * 0.5)
        newest.write_bytes(bytes(data))
        restarted, _ = run_in(sus, work, "metadata", 2, options=["--restart", str(run_dir)])
        check("changed time attribute: restart falls back and ends on the clean digest",
              restarted.returncode == 0 and restarted.digests.get("u") == clean_digest,
              restarted.describe())
        check("changed time attribute: the checkpoint is named unusable",
              re.search(r"t00006\.h5.*(corrupt metadata|disagrees with index)",
                        restarted.stdout + restarted.stderr),
              restarted.describe())

    # A stale temporary left by a killed write goes at the restart, said so.
    stale = run_dir / "checkpoints" / "t00008.h5.tmp"
    stale.write_bytes(b"half a checkpoint")
    restarted, _ = run_in(sus, work, "metadata", 2, options=["--restart", str(run_dir)])
    check("stale temporary: restart succeeds", restarted.returncode == 0, restarted.describe())
    check("stale temporary: removed", not stale.exists())
    check("stale temporary: the restart says so",
          re.search(r"removed .*t00008\.h5\.tmp", restarted.stdout + restarted.stderr),
          restarted.describe())

    # The stored deck changed after the run: no checkpoint matches it.
    deck_file = run_dir / "input.yaml"
    deck_file.write_text(deck_file.read_text().replace("viscosity: 0.01", "viscosity: 0.02"))
    restarted, _ = run_in(sus, work, "metadata", 2, options=["--restart", str(run_dir)])
    expect_failure(check, "changed input.yaml", restarted, 1,
                   r"another deck than .*input\.yaml")


if __name__ == "__main__":
    main()
