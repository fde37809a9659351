"""Faults on one rank end the whole job promptly with one message and the
documented exit code, and what was written before stays usable.

Each case runs on 1 and 3 ranks (3 ranks with 2 patches leaves a rank
without patches; 2 ranks tell nothing the two do not) under a timeout that only a hang reaches, and checks the
exit code (no signal), that the error is printed exactly once, and where it
matters that the earlier checkpoints restart to the digest of a clean run.
The I/O faults come from the test-only hook TESSERA_TEST_IO_FAULT
(Core/IO/FaultInjection.h): OPERATION:FILE:RANK.

usage: test_faults.py --sus S --mpirun M [--mpirun-flag=F]... DECK WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import fcntl
import pathlib
import re
import shutil
import struct
import subprocess
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
    check(f"{name}: no HDF5 diagnostics", "HDF5-DIAG" not in run.stdout + run.stderr, run.stderr)


def run_checks(sus, deck, work, check):
    # A clean run: the digest every restart below must reach.
    clean, _ = run_in(sus, work, "clean", 1, SMALL, deck=deck)
    check("clean run succeeds", clean.returncode == 0, clean.describe())
    clean_digest = clean.digests.get("u")

    # 1 rank, and 3 (a rank that fails alone, ranks without patches): 2
    # ranks tell nothing these two do not.
    for ranks in (1, 3):
        faulty_rank = ranks - 1
        # Full disk while writing an output (the rank writing fails after the
        # collective write returned), a checkpoint, at close, at the flush.
        injected = r"injected by TESSERA_TEST_IO_FAULT|no space left for"
        # A disk that fills for real inside HDF5's collective writes (every
        # rank's, or one rank's): the file named, and the cause.
        real = r"t0000[34]\.h5.*(failed|File too large)"
        cases = [
            ("write of output t00003", f"write:t00003.h5:{faulty_rank}", injected),
            ("write of checkpoint t00004", f"write:checkpoints/t00004:{faulty_rank}", injected),
            ("create of output t00003", f"create:t00003.h5:{faulty_rank}", injected),
            ("close of checkpoint t00004", f"close:checkpoints/t00004:{faulty_rank}", injected),
            ("flush of output t00003", "sync:t00003.h5:0", injected),
            # The directory is flushed after the rename that publishes a file.
            ("flush of the directory of output t00003", "dirsync:t00003.h5:0", injected),
            ("no space for checkpoint t00004", "space:checkpoints/t00004:0", injected),
            ("disk full inside HDF5, output t00003, every rank", "full:t00003.h5:*", real),
            ("disk full inside HDF5, checkpoint t00004, the last rank",
             f"full:checkpoints/t00004:{faulty_rank}", real),
        ]
        for what, fault, pattern in cases:
            name = f"{what}, {ranks} rank(s)"
            folder_name = f"io-{ranks}-{fault.split(':')[0]}-{len(check.results)}"
            run, folder = run_in(sus, work, folder_name, ranks, SMALL + OUTPUT_EACH_STEP + CHECKPOINTS,
                                 deck=deck, env={"TESSERA_TEST_IO_FAULT": fault})
            expect_failure(check, name, run, 2, pattern)
            run_dir = folder / "burgers.tsa.000"
            leftovers = sorted(p.name for p in run_dir.rglob("*.tmp"))
            check(f"{name}: no temporary file left", not leftovers, str(leftovers))
            index = load_index(run_dir / "index.yaml")
            check(f"{name}: the index lists only complete files",
                  all((run_dir / e[3]).is_file() for e in index["outputs"] + index["checkpoints"]),
                  str(index))
            # The earlier checkpoint restarts to the clean run's digest. What
            # a fault leaves behind does not depend on the rank count, so the
            # restart and the read-back run on 3 ranks only (archive_restart
            # restarts on 1 rank).
            check(f"{name}: the checkpoint of timestep 2 is listed",
                  [e[0] for e in index["checkpoints"]][:1] == [2], str(index))
            if ranks == 1:
                shutil.rmtree(folder, ignore_errors=True)
                continue
            if index["checkpoints"]:
                restarted, _ = run_in(sus, work, folder_name, ranks,
                                      options=["--restart", str(run_dir)])
                check(f"{name}: the earlier checkpoint restarts to the clean digest",
                      restarted.returncode == 0 and restarted.digests.get("u") == clean_digest,
                      restarted.describe())
            # Earlier outputs stay readable.
            if index["outputs"]:
                first = run_dir / index["outputs"][0][3]
                inspect = pathlib.Path(sus.sus).parent / "tessera-inspect"
                inspected = subprocess.run(
                    [str(inspect), str(run_dir), "--stats", "--var", "u", "--timestep",
                     str(index["outputs"][0][0])],
                    capture_output=True, text=True, timeout=HANG_LIMIT)
                check(f"{name}: the first output ({first.name}) is readable",
                      inspected.returncode == 0 and " u " in f" {inspected.stdout} ",
                      inspected.stdout + inspected.stderr)
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
    # Counted on the report's own words, whatever precedes them: the report
    # was once printed bare by the watchdog and again by sus.
    said = re.findall(r"watchdog: no progress for 1e-09 s on rank (\d+)", run.stderr)
    check("watchdog: each rank reports at most once", said and len(said) == len(set(said)),
          run.stderr)
    check("watchdog: the report says what the rank waits for",
          re.search(r"waits for|reduction|message from rank", run.stderr), run.stderr)

    for ranks in (1, 3):
        check_metadata_faults(sus, deck, work, check, ranks, clean_digest)


def patch_value(data, old, new, after=b""):
    """Replaces the one occurrence of bytes `old` (the first within 256 bytes
    after `after`, if given) by `new`; False if there is none to replace."""
    start = 0
    if after:
        start = data.find(after)
        if start < 0:
            return False
        at = data.find(old, start, start + 256)
    else:
        at = data.find(old) if data.count(old) == 1 else -1
    if at < 0:
        return False
    data[at:at + len(old)] = new
    return True


def check_metadata_faults(sus, deck, work, check, ranks, clean_digest):
    """Corrupt checkpoint metadata, a stale temporary and a changed deck, on `ranks` ranks."""
    tag = f"{ranks} rank(s)"
    straight, folder = run_in(sus, work, f"metadata-{ranks}", ranks, SMALL + CHECKPOINTS, deck=deck)
    check(f"metadata run, {tag}", straight.returncode == 0, straight.describe())
    run_dir = folder / "burgers.tsa.000"
    index = load_index(run_dir / "index.yaml")
    check(f"metadata run, {tag}: checkpoints at 2, 4 and 6",
          [e[0] for e in index["checkpoints"]] == [2, 4, 6], str(index))
    if len(index["checkpoints"]) != 3:
        shutil.rmtree(folder, ignore_errors=True)
        return
    newest_entry = index["checkpoints"][-1]
    newest = run_dir / newest_entry[3]
    pristine = newest.read_bytes()

    def restart(env=None):
        return run_in(sus, work, f"metadata-{ranks}", ranks, options=["--restart", str(run_dir)],
                      env=env)[0]

    def expect_fallback(what, reason):
        restarted = restart()
        said = restarted.stdout + restarted.stderr
        # The output link names the restart's own run directory.
        loaded = load_index(folder / "burgers.tsa" / "index.yaml").get("restarted_from", "")
        check(f"{what}, {tag}: restart falls back to t00004 and ends on the clean digest",
              restarted.returncode == 0 and restarted.digests.get("u") == clean_digest
              and loaded.endswith("checkpoints/t00004.h5"), f"restarted from {loaded}\n" + restarted.describe())
        check(f"{what}, {tag}: t00006 is named unusable, with the reason",
              re.search(r"t00006\.h5 is unusable.*" + reason, said), restarted.describe())

    # Each attribute a restart uses, changed in place in the newest
    # checkpoint: its checksum no longer matches.
    edits = [
        ("changed time attribute", struct.pack("<d", newest_entry[1]),
         struct.pack("<d", newest_entry[1] * 0.5), b""),
        ("changed delt attribute", struct.pack("<d", newest_entry[2]),
         struct.pack("<d", newest_entry[2] * 2.0), b"delt\x00"),
        ("changed timestep attribute", struct.pack("<q", newest_entry[0]),
         struct.pack("<q", newest_entry[0] + 1), b"timestep\x00"),
    ]
    for what, old, new, after in edits:
        data = bytearray(pristine)
        found = patch_value(data, old, new, after)
        check(f"{what}, {tag}: the value is found once in the file", found)
        if not found:
            continue
        newest.write_bytes(bytes(data))
        expect_fallback(what, r"corrupt metadata")
    newest.write_bytes(pristine)

    # The file intact, its entry in the index changed: they disagree.
    index_file = run_dir / "index.yaml"
    index_text = index_file.read_text()
    import yaml
    raw = yaml.safe_load(index_text)
    raw["checkpoints"][-1]["time"] = newest_entry[1] * 0.5
    index_file.write_text(yaml.safe_dump(raw))
    expect_fallback("time changed in index.yaml", r"disagrees with index\.yaml")
    index_file.write_text(index_text)

    # A temporary some process still writes (it holds the run directory's
    # lock) stays; once none does, the restart removes it and says so.
    stale = run_dir / "checkpoints" / "t00008.h5.tmp"
    stale.write_bytes(b"half a checkpoint")
    with open(run_dir / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        restarted = restart()
        check(f"live temporary, {tag}: the restart leaves it and succeeds",
              restarted.returncode == 0 and stale.exists()
              and restarted.digests.get("u") == clean_digest, restarted.describe())
    restarted = restart()
    check(f"stale temporary, {tag}: restart succeeds on the clean digest",
          restarted.returncode == 0 and restarted.digests.get("u") == clean_digest,
          restarted.describe())
    check(f"stale temporary, {tag}: removed", not stale.exists())
    check(f"stale temporary, {tag}: the restart says so",
          re.search(r"removed .*t00008\.h5\.tmp", restarted.stdout + restarted.stderr),
          restarted.describe())

    # The stored deck changed after the run: no checkpoint matches it.
    deck_file = run_dir / "input.yaml"
    deck_file.write_text(deck_file.read_text().replace("viscosity: 0.01", "viscosity: 0.02"))
    restarted = restart()
    expect_failure(check, f"changed input.yaml, {tag}", restarted, 1,
                   r"another deck than .*input\.yaml")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
