"""A restarted run gives bitwise the fields of the uninterrupted run, for
other rank counts and patch layouts too, and a crash or a damaged checkpoint
loses nothing: SIGKILL during a checkpoint write, a truncated newest
checkpoint and a corrupted dataset each restart from the previous checkpoint.
Every restart is checked to have loaded the checkpoint it should: its
"restart: from PATH (timestep N, ...)" log line and the `restarted_from` of
the run directory it writes.

usage: test_restart.py --sus S --mpirun M [--mpirun-flag=F]... DECK WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import fcntl
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

from sus_runner import (load_index, Checks, Sus, SusRun, parse_common_args, fresh_directory,
                        own_mpi_session_directory)

STEPS = ["time.max_timesteps=12", "time.max_time=1.0"]
CHECKPOINTS = ["checkpoint.timestep_interval=4", "checkpoint.cycle=3"]


def versions(base):
    """The version directories BASE.NNN that exist."""
    return sorted(p.name for p in base.parent.glob(base.name + ".[0-9][0-9][0-9]"))



def lock_comes_free(path, limit=120):
    """Waits until nobody holds the flock on `path` (True), at most `limit` s."""
    deadline = time.monotonic() + limit
    while True:
        with open(path, "a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)

def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, work = rest[0], pathlib.Path(rest[1])
    with fresh_directory(work):
        run_checks(Sus(sus_path, mpirun, flags), deck, work)


def run_checks(sus, deck, work):
    check = Checks()

    def restart(ranks, run_dir, sets=(), checkpoint=None):
        """sus --restart at info level (no --quiet), so that it logs the checkpoint it loads."""
        options = ["--restart", str(run_dir)] + (["--checkpoint", str(checkpoint)] if checkpoint is not None else [])
        command = [arg for arg in sus.command(None, ranks, sets, options) if arg != "--quiet"]
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        return SusRun(done.returncode, done.stdout, done.stderr)

    def loaded(name, run, new_dir, checkpoint_file, timestep):
        """The restart logged and indexed checkpoint_file (of timestep) as the one it started from."""
        want = os.path.realpath(checkpoint_file)
        logged = re.findall(r"^\[INFO\] restart: from (\S+) \(timestep (\d+), time ", run.stdout, re.M)
        index = load_index(new_dir / "index.yaml") if (new_dir / "index.yaml").is_file() else {}
        recorded = index.get("restarted_from", "")
        check(f"{name}: logs 'restart: from {pathlib.Path(checkpoint_file).name} (timestep {timestep}'",
              len(logged) == 1 and os.path.realpath(logged[0][0]) == want and int(logged[0][1]) == timestep,
              f"logged {logged}, want {want}\n{run.describe()}")
        check(f"{name}: {new_dir.name}/index.yaml has restarted_from {pathlib.Path(checkpoint_file).name}",
              bool(recorded) and os.path.realpath(recorded) == want, f"restarted_from {recorded!r}, want {want}")

    reference = sus.run(deck, ranks=1, sets=STEPS)
    check("the uninterrupted run", reference.returncode == 0 and bool(reference.digests), reference.describe())
    expected = reference.digests
    reference16 = sus.run(deck, ranks=1, sets=["time.max_timesteps=16", "time.max_time=1.0"])
    check("the uninterrupted run of 16 steps differs from 12", reference16.returncode == 0
          and bool(reference16.digests) and reference16.digests != expected, reference16.describe())

    # Elastic restarts: (ranks that write, ranks that restart, layout override for the restart, checkpoint).
    cases = [(1, 1, [], 8), (2, 1, [], 4), (1, 4, [], 8), (2, 3, ["grid.level.patches=[3,1,2]"], 4),
             (4, 2, ["grid.level.patches=[1,4,1]", "load_balancer.type=round_robin"], 8)]
    for n, (writers, restarters, layout, step) in enumerate(cases):
        base = work / f"elastic{n}.tsa"
        first = sus.run(deck, ranks=writers, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
        written = load_index(base / "index.yaml")["checkpoints"] if (base / "index.yaml").is_file() else []
        check(f"{writers} rank(s) write checkpoints 4, 8 and 12 (cycle 3) and the uninterrupted digest",
              first.returncode == 0 and first.digests == expected and [t for t, *_ in written] == [4, 8, 12],
              f"{written}\n{first.describe()}")
        again = restart(restarters, base, layout, checkpoint=step)
        name = f"restart {writers} -> {restarters} rank(s) {layout} --checkpoint {step}"
        check(f"{name} matches bitwise", again.returncode == 0 and again.digests == expected, again.describe())
        check(f"{name}: writes {base.name}.001 and moves the link to it",
              versions(base) == [f"{base.name}.000", f"{base.name}.001"]
              and base.resolve().name == f"{base.name}.001", str(versions(base)))
        loaded(name, again, work / f"{base.name}.001",
               work / f"{base.name}.000" / "checkpoints" / f"t{step:05d}.h5", step)
        # The restarted run compares with the straight one on the outputs both wrote.
        compare = pathlib.Path(sus.sus).parent / "tessera-compare"
        done = subprocess.run([str(compare), "--exact", str(work / f"{base.name}.000"),
                               str(work / f"{base.name}.001")], capture_output=True, text=True)
        check(f"{name}: tessera-compare --exact finds the restarted outputs equal to the straight run's",
              done.returncode == 0 and "comparing timesteps" in done.stdout
              and "only in the first: 0" in done.stdout, done.stdout + done.stderr)

    source = work / "elastic0.tsa.000"
    newest = restart(2, source, ["time.max_timesteps=16"])
    check("without --checkpoint the restart continues to timestep 16 and matches",
          newest.returncode == 0 and newest.digests == reference16.digests, newest.describe())
    loaded("without --checkpoint", newest, work / "elastic0.tsa.002", source / "checkpoints" / "t00012.h5", 12)

    # A run that had ended stays ended: restarted from its last checkpoint
    # it takes no step (it took one more, and ended on another digest).
    def steps_taken(run):
        found = re.findall(r"^summary: (\d+) timesteps", run.stdout + run.stderr, re.M)
        return int(found[0]) if found else -1

    ended = restart(1, source)
    check("a run at time.max_timesteps restarted from its last checkpoint takes no step",
          ended.returncode == 0 and steps_taken(ended) == 0 and ended.digests == expected,
          ended.describe())
    check("... and says so", "the run had ended at timestep 12" in ended.stdout
          and "unless the deck's limits are raised" in ended.stdout, ended.stdout)
    jacobi_deck = str(pathlib.Path(deck).parent.parent / "Stencil" / "jacobi.yaml")
    jacobi_base = work / "jacobi.tsa"
    # 141 divides the 423 sweeps to convergence: checkpoints 282 and 423.
    converged = sus.run(jacobi_deck, ranks=2,
                        sets=["checkpoint.timestep_interval=141", f"output.dir={jacobi_base}"])
    jacobi_dir = work / "jacobi.tsa.000"
    written = [t for t, *_ in load_index(jacobi_dir / "index.yaml")["checkpoints"]] \
        if (jacobi_dir / "index.yaml").is_file() else []
    check("Jacobi converges at sweep 423 with checkpoints at 282 and 423",
          converged.returncode == 0 and steps_taken(converged) == 423 and written == [282, 423],
          f"{written}\n{converged.describe()}")
    again = restart(2, jacobi_dir)
    check("a converged run restarted from its last checkpoint sweeps no more and keeps its digest",
          again.returncode == 0 and steps_taken(again) == 0 and again.digests == converged.digests,
          again.describe())
    check("... and says it had converged",
          "the run had ended at timestep 423 (the component converged)" in again.stdout, again.stdout)
    earlier = restart(2, jacobi_dir, checkpoint=282)
    check("restarted from sweep 282 it converges at 423 on the same digest",
          earlier.returncode == 0 and steps_taken(earlier) == 141
          and earlier.digests == converged.digests, earlier.describe())

    # SIGKILL inside the window between writing checkpoint 8 and renaming it.
    base = work / "killed.tsa"
    command = sus.command(deck, ranks=2, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
    directory = base.parent / "killed.tsa.000"
    with own_mpi_session_directory() as session:
        env = dict(os.environ, OMP_NUM_THREADS="1", TESSERA_TEST_CHECKPOINT_DELAY="3", **session)
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True)
        target = directory / "checkpoints" / "t00008.h5.tmp"
        deadline = time.monotonic() + 120
        while not target.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        caught = target.exists()
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        check("the run was killed while checkpoint 8 was being written", caught)
        # mpirun puts each rank in a process group of its own: they outlive
        # it a moment. Rank 0 holds the run directory's lock while it may
        # write, so the lock comes free once no process of the killed run is
        # left.
        check("the killed run's ranks are gone (its lock is free)",
              lock_comes_free(directory / ".lock"))
    index = (directory / "index.yaml").read_text() if (directory / "index.yaml").exists() else ""
    check("the index lists checkpoint 4 and not the unfinished 8",
          "t00004.h5" in index and "t00008.h5" not in index, index)
    resumed = restart(1, directory)
    check("the killed run restarts and matches bitwise",
          resumed.returncode == 0 and resumed.digests == expected, resumed.describe())
    loaded("the killed run", resumed, base.parent / "killed.tsa.001", directory / "checkpoints" / "t00004.h5", 4)
    check("the restart removed the killed write's temporary", caught and not target.exists())
    check("the restart says it removed it",
          re.search(r"restart: removed .*t00008\.h5\.tmp \(left by an interrupted write\)",
                    resumed.stdout + resumed.stderr), resumed.describe())

    # A truncated newest checkpoint: reported by name, the restart falls back.
    base = work / "damaged.tsa"
    done = sus.run(deck, ranks=2, sets=[*STEPS, *CHECKPOINTS, f"output.dir={base}"])
    check("the run to damage exits 0", done.returncode == 0, done.describe())
    directory = base.parent / "damaged.tsa.000"
    checkpoints = directory / "checkpoints"
    newest_file = checkpoints / "t00012.h5"
    original = newest_file.read_bytes()
    newest_file.write_bytes(original[: len(original) // 2])
    truncated = restart(2, directory, ["time.max_timesteps=16"])
    output = truncated.stdout + truncated.stderr
    check("a truncated newest checkpoint is named and the restart falls back and matches",
          truncated.returncode == 0 and re.search(r"checkpoint \S*t00012\.h5 is unusable .*; falling back to "
                                                  r"\S*t00008\.h5", output) is not None
          and truncated.digests == reference16.digests, truncated.describe())
    loaded("truncated t00012", truncated, base.parent / "damaged.tsa.001", checkpoints / "t00008.h5", 8)

    # A corrupted dataset (bytes flipped inside u's data): the checksum catches it.
    corrupted = bytearray(original)
    middle = len(corrupted) // 2
    corrupted[middle:middle + 8] = bytes(b ^ 0xFF for b in corrupted[middle:middle + 8])
    newest_file.write_bytes(bytes(corrupted))
    flipped = restart(1, directory, ["time.max_timesteps=16"])
    output = flipped.stdout + flipped.stderr
    check("a corrupted dataset fails its checksum and the restart falls back and matches",
          flipped.returncode == 0 and re.search(r"t00012\.h5 is unusable .*checksum", output) is not None
          and flipped.digests == reference16.digests, flipped.describe())
    loaded("corrupted t00012", flipped, base.parent / "damaged.tsa.002", checkpoints / "t00008.h5", 8)

    # Two unusable checkpoints: the restart falls back twice, to the oldest.
    eight = checkpoints / "t00008.h5"
    eight.write_bytes(eight.read_bytes()[:1000])
    oldest = restart(2, directory, ["time.max_timesteps=16"])
    output = oldest.stdout + oldest.stderr
    check("with 12 and 8 unusable the restart falls back twice, to checkpoint 4, and matches",
          oldest.returncode == 0 and len(re.findall(r"is unusable", output)) == 2
          and re.search(r"t00008\.h5 is unusable .*; falling back to \S*t00004\.h5", output) is not None
          and oldest.digests == reference16.digests, oldest.describe())
    loaded("12 and 8 unusable", oldest, base.parent / "damaged.tsa.003", checkpoints / "t00004.h5", 4)

    # Nothing usable: a clear error naming every checkpoint tried, exit 1.
    for entry in checkpoints.glob("*.h5"):
        entry.write_bytes(b"not an HDF5 file")
    hopeless = restart(1, directory)
    check("with no usable checkpoint the restart fails clearly (exit 1), naming all three",
          hopeless.returncode == 1 and f"no usable checkpoint in '{directory}'" in hopeless.stderr
          and all(f"t{step:05d}.h5" in hopeless.stderr for step in (4, 8, 12))
          and not hopeless.digests, hopeless.describe())

    check.finish()


if __name__ == "__main__":
    main()
