"""Runs sus (under mpirun for more than one rank) and parses its end-of-run report (shared by the integration tests)."""
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile


class SusRun:
    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.digests = dict(re.findall(r"^digest (\S+) ([0-9a-f]{16})$", stdout, re.M))
        # The analysis results: "NAME: VALUE" lines (error norms, the PRK's mean output).
        self.analysis = {name: float(value) for name, value in
                         re.findall(r"^([A-Za-z][A-Za-z0-9 ]*): ([-+0-9.eEinfan]+)$", stdout, re.M)}
        steps = re.search(r"^summary: (\d+) timesteps", stdout, re.M)
        self.timesteps = int(steps.group(1)) if steps else None
        rate = re.search(r"([0-9.e+-]+) cell updates per second", stdout)
        self.cell_updates_per_second = float(rate.group(1)) if rate else None

    def describe(self):
        return f"exit {self.returncode}\n--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"


def parse_common_args(argv):
    """--sus PATH --mpirun PATH [--mpirun-flag F]... then the test's own arguments."""
    sus, mpirun, flags, rest = None, None, [], []
    it = iter(argv)
    for arg in it:
        if arg == "--sus":
            sus = next(it)
        elif arg == "--mpirun":
            mpirun = next(it)
        elif arg.startswith("--mpirun-flag="):
            flags.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
    if not sus or not mpirun:
        sys.exit("usage: --sus PATH --mpirun PATH [--mpirun-flag=F]... ARGS")
    return sus, mpirun, flags, rest


class Sus:
    def __init__(self, sus, mpirun, flags):
        self.sus, self.mpirun, self.flags = sus, mpirun, flags

    def command(self, deck, ranks=1, sets=(), options=()):
        """One rank runs without mpirun, as an MPI singleton, the way a user starts
        sus on a laptop (tests/integration/CMakeLists.txt: why, and the setting
        that makes it start quickly)."""
        launcher = [] if ranks == 1 else [self.mpirun, *self.flags, "-n", str(ranks)]
        cmd = [*launcher, self.sus, "--quiet", *options]
        for assignment in sets:
            cmd += ["--set", assignment]
        if deck:
            cmd.append(deck)
        return cmd

    def run(self, deck, ranks=1, sets=(), options=(), threads=1, timeout=600, cwd=None, env=None):
        """deck may be None (with --restart in options). A run of more device threads than this
        process may use CPUs waits passively (OMP_WAIT_POLICY=passive, unless set): OpenMP threads
        that spin at every barrier while the threads they wait for have no core took 1 to 8 s
        instead of 0.4 s (heat, 2 ranks x 2 threads on 2 CPUs). Only the waiting differs."""
        environment = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false", **(env or {}))
        if ranks * threads > len(os.sched_getaffinity(0)):
            environment.setdefault("OMP_WAIT_POLICY", "passive")
        done = subprocess.run(self.command(deck, ranks, sets, options), capture_output=True, text=True,
                              timeout=timeout, env=environment, cwd=cwd)
        return SusRun(done.returncode, done.stdout, done.stderr)

    def checked(self, check, name, deck, ranks=1, sets=(), options=()):
        """run, recording with `check` (Checks) under `name` that it exited 0 with digests."""
        result = self.run(deck, ranks, sets, options)
        check(f"{name}: exit 0", result.returncode == 0 and result.digests, result.describe())
        return result

    def run_serial(self, args, timeout=120):
        """sus without mpirun (singleton MPI), for option handling."""
        env = dict(os.environ, OMP_NUM_THREADS="1")
        done = subprocess.run([self.sus, *args], capture_output=True, text=True, timeout=timeout, env=env)
        return SusRun(done.returncode, done.stdout, done.stderr)


def load_index(path):
    """index.yaml as {'outputs': [(timestep, time, delt, file)], 'checkpoints': [...], other keys: str}."""
    text = path.read_text()
    try:
        import yaml
        raw = yaml.safe_load(text)
    except ImportError:  # python3-yaml is optional: the index is simple enough to read by hand
        raw, section = {}, None
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("#") or stripped == "[]":
                continue
            if not line.startswith(" "):
                section, _, value = line.partition(":")
                raw[section] = value.strip() or []
            elif stripped.startswith("- {") and stripped.endswith("}"):
                raw[section].append(dict(part.split(": ", 1) for part in stripped[3:-1].split(", ")))
    index = {key: value for key, value in raw.items() if key not in ("outputs", "checkpoints")}
    for key in ("outputs", "checkpoints"):
        index[key] = [(int(e["timestep"]), float(e["time"]), float(e["delt"]), str(e["file"]))
                      for e in raw.get(key) or []]
    return index



class Checks:
    """Named pass/fail checks that print as they go and end with the closing line CI reads."""

    def __init__(self):
        self.results = []

    def __call__(self, name, ok, detail=""):
        self.results.append(bool(ok))
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
        if not ok and detail:
            print(detail)

    def finish(self):
        passed = sum(self.results)
        print(f"{passed} passed, {len(self.results) - passed} failed")
        sys.exit(0 if self.results and all(self.results) else 1)


@contextlib.contextmanager
def own_mpi_session_directory():
    """Environment settings that give a job Open MPI's session directory (its
    PMIx sockets and shared memory files) under a temporary folder of its
    own, removed on leaving: a job the test kills never removes the one it
    would otherwise leave in /tmp. A short path: the sockets' is limited."""
    folder = tempfile.mkdtemp(prefix="tessera-mpi-")
    try:
        yield {"OMPI_MCA_orte_tmpdir_base": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def fresh_directory(path):
    """An empty folder at `path` for a test's files, removed afterwards whatever happens."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
