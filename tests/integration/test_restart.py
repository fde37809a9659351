"""A restarted run gives bitwise the fields of the uninterrupted run, for
other rank counts and patch layouts too, and a crash or a damaged checkpoint
loses nothing: SIGKILL during a checkpoint write, a truncated newest
checkpoint and a corrupted dataset each restart from the previous checkpoint.

usage: test_restart.py --sus S --mpirun M [--mpirun-flag=F]... DECK WORKDIR
"""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

from sus_runner import Checks, Sus, parse_common_args

STEPS = ["time.max_timesteps=12", "time.max_time=1.0"]
CHECKPOINTS = ["checkpoint.timestep_interval=4", "checkpoint.cycle=3"]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, work = rest[0], pathlib.Path(rest[1])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()

    reference = sus.run(deck, ranks=1, sets=STEPS)
    check("the uninterrupted run", reference.returncode == 0 and bool(reference.digests), reference.describe())
    expected = reference.digests

    # Elastic restarts: (ranks that write, ranks that restart, layout override for the restart).
    cases = [(1, 1, []), (2, 1, []), (1, 4, []), (2, 3, ["grid.level.patches=[3,1,2]"]),
             (4, 2, ["grid.level.patches=[1,4,1]", "load_balancer.type=round_robin"])]
    for n, (writers, restarters, layout) in enumerate(cases):
        base = work / f"elastic{n}.tsa"
        first = sus.run(deck, ranks=writers, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
        again = sus.run(None, ranks=restarters, sets=layout, options=["--restart", str(base), "--checkpoint", "8"])
        check(f"restart {writers} -> {restarters} rank(s) {layout} from timestep 8 matches bitwise",
              first.returncode == 0 and again.returncode == 0 and again.digests == expected
              and first.digests == expected, again.describe())
    newest = sus.run(None, ranks=2, options=["--restart", str(work / "elastic0.tsa.000")],
                     sets=["time.max_timesteps=16"])
    reference16 = sus.run(deck, ranks=1, sets=["time.max_timesteps=16", "time.max_time=1.0"])
    check("without --checkpoint the restart takes the newest (timestep 12) and matches",
          newest.returncode == 0 and newest.digests == reference16.digests
          and reference16.digests != expected, newest.describe())

    # SIGKILL inside the window between writing checkpoint 8 and renaming it.
    base = work / "killed.tsa"
    command = sus.command(deck, ranks=2, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
    env = dict(os.environ, OMP_NUM_THREADS="1", TESSERA_TEST_CHECKPOINT_DELAY="3")
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    target = base.parent / "killed.tsa.000" / "checkpoints" / "t00008.h5.tmp"
    deadline = time.time() + 120
    while not target.exists() and time.time() < deadline and process.poll() is None:
        time.sleep(0.05)
    caught = target.exists()
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    check("the run was killed while checkpoint 8 was being written", caught)
    directory = base.parent / "killed.tsa.000"
    index = (directory / "index.yaml").read_text() if (directory / "index.yaml").exists() else ""
    check("the index lists checkpoint 4 and not the unfinished 8",
          "t00004.h5" in index and "t00008.h5" not in index, index)
    resumed = sus.run(None, ranks=1, options=["--restart", str(directory)])
    check("the killed run restarts from checkpoint 4 and matches bitwise",
          resumed.returncode == 0 and resumed.digests == expected, resumed.describe())

    # A truncated newest checkpoint: reported by name, the restart falls back.
    base = work / "damaged.tsa"
    done = sus.run(deck, ranks=2, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
    directory = base.parent / "damaged.tsa.000"
    newest_file = directory / "checkpoints" / "t00012.h5"
    original = newest_file.read_bytes()
    newest_file.write_bytes(original[: len(original) // 2])
    truncated = sus.run(None, ranks=2, options=["--restart", str(directory)], sets=["time.max_timesteps=16"])
    check("a truncated newest checkpoint is named and the restart falls back to checkpoint 8",
          done.returncode == 0 and truncated.returncode == 0 and "t00012.h5" in truncated.stdout + truncated.stderr
          and "falling back" in truncated.stdout + truncated.stderr
          and truncated.digests == reference16.digests, truncated.describe())

    # A corrupted dataset (bytes flipped inside u's data): the checksum catches it.
    corrupted = bytearray(original)
    middle = len(corrupted) // 2
    corrupted[middle:middle + 8] = bytes(b ^ 0xFF for b in corrupted[middle:middle + 8])
    newest_file.write_bytes(bytes(corrupted))
    flipped = sus.run(None, ranks=1, options=["--restart", str(directory)], sets=["time.max_timesteps=16"])
    check("a corrupted dataset fails its checksum and the restart falls back",
          flipped.returncode == 0 and "checksum" in flipped.stdout + flipped.stderr
          and flipped.digests == reference16.digests, flipped.describe())

    # Nothing usable: a clear error, exit 1.
    for entry in (directory / "checkpoints").glob("*.h5"):
        entry.write_bytes(b"not an HDF5 file")
    hopeless = sus.run(None, ranks=1, options=["--restart", str(directory)])
    check("with no usable checkpoint the restart fails clearly (exit 1)",
          hopeless.returncode == 1 and "no usable checkpoint" in hopeless.stderr, hopeless.describe())

    check.finish()


if __name__ == "__main__":
    main()
