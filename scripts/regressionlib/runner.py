"""Runs one regression test and checks it: the straight run against its gold
standard, a restart from the run's first checkpoint against the straight
run (bitwise), and its wall time and peak memory against the stored ones."""
import dataclasses
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time

import yaml

from . import gold as goldlib
from .testlist import Tolerance

EXACT = Tolerance()


@dataclasses.dataclass
class Setup:
    """Where things are, shared by every test of one invocation."""
    repo: pathlib.Path
    sus: pathlib.Path
    compare: pathlib.Path
    mpirun: list        # mpirun and its flags, without -n
    gold_root: pathlib.Path
    work_root: pathlib.Path
    margins: object
    update_gold: bool = False
    keep: bool = False


@dataclasses.dataclass
class Outcome:
    test: object
    result: str = "PASS"  # PASS, FAIL, TIMEOUT, UPDATED
    wall_seconds: float = None
    peak_memory_bytes: int = None
    notes: list = dataclasses.field(default_factory=list)     # short, for the table
    details: list = dataclasses.field(default_factory=list)   # long, printed below it
    work_dir: pathlib.Path = None

    @property
    def failed(self):
        return self.result in ("FAIL", "TIMEOUT")

    def fail(self, note, detail=None, result="FAIL"):
        self.result = result
        self.notes.append(note)
        if detail:
            self.details.append(detail)


class RunFailed(Exception):
    def __init__(self, note, detail=None, result="FAIL", seconds=None):
        super().__init__(note)
        self.note, self.detail, self.result, self.seconds = note, detail, result, seconds


@dataclasses.dataclass
class SusRun:
    returncode: int
    seconds: float
    max_rss_bytes: int  # the largest process of the job (getrusage of the children)
    stdout: str
    stderr: str
    timed_out: bool


def run_job(command, env, timeout, log_prefix):
    """Runs `command` in its own session with stdout/stderr in files beside
    `log_prefix`; kills the whole job on timeout.

    Open MPI keeps each job's session directory (its PMIx sockets and shared
    memory files) under /tmp, and a job killed at its timeout never removes
    it: the job gets a session directory base of its own, removed here
    whatever happened. A short path under the system's temporary folder,
    since the sockets' paths have a length limit."""
    out_path = log_prefix.with_suffix(".stdout")
    err_path = log_prefix.with_suffix(".stderr")
    session = tempfile.mkdtemp(prefix="tessera-mpi-")
    env = dict(env, OMPI_MCA_orte_tmpdir_base=session)
    try:
        return _run_logged(command, env, timeout, out_path, err_path)
    finally:
        shutil.rmtree(session, ignore_errors=True)


def _run_logged(command, env, timeout, out_path, err_path):
    with open(out_path, "w") as out, open(err_path, "w") as err:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, start_new_session=True)
        deadline = start + timeout
        status, usage, timed_out = None, None, False
        while status is None:
            pid, status_code, rusage = os.wait4(process.pid, os.WNOHANG)
            if pid == process.pid:
                status, usage = status_code, rusage
                break
            if time.monotonic() > deadline:
                timed_out = True
                _kill_job(process.pid)
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.02)
        seconds = time.monotonic() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # Popen must not reap it again
    return SusRun(process.returncode, seconds, usage.ru_maxrss * 1024,
                  out_path.read_text(errors="replace"), err_path.read_text(errors="replace"), timed_out)


def _kill_job(pid):
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + grace
        while time.monotonic() < end:
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return
            time.sleep(0.05)


def sus_command(setup, test, options):
    # One rank runs as an MPI singleton, without mpirun (job_environment).
    launcher = [] if test.ranks == 1 else [*setup.mpirun, "-n", str(test.ranks)]
    return [*launcher, str(setup.sus), "--quiet",
            "--scheduler", test.scheduler, "--nthreads", str(test.threads), *test.options, *options]


def job_environment(test):
    # OMP_NUM_THREADS for the ranks; --nthreads is what sus reads. A singleton
    # that forks no helper daemon (Open MPI's orted): 0.1 s to start and end
    # MPI instead of 0.3 s; mpirun's ranks are no singletons and ignore it.
    return dict(os.environ, OMP_NUM_THREADS=str(test.threads), OMP_PROC_BIND="false",
                OMPI_MCA_ess_singleton_isolated="1")


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1] if lines else ""


def run_sus(setup, test, options, work, label):
    run = run_job(sus_command(setup, test, options), job_environment(test), test.timeout, work / label)
    if run.timed_out:
        raise RunFailed(f"{label}: timed out after {test.timeout:g} s",
                        f"{label}: killed after {test.timeout:g} s; its output is in {work}",
                        result="TIMEOUT", seconds=run.seconds)
    if run.returncode != 0:
        message = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
        raise RunFailed(f"{label}: sus exited {run.returncode}",
                        f"{label}: sus exited {run.returncode}: "
                        f"{message[0] if message else last_line(run.stderr) or last_line(run.stdout)}",
                        seconds=run.seconds)
    return run


def compare_archives(setup, first, second, tolerance):
    done = subprocess.run([str(setup.compare), *tolerance.compare_args(), str(first), str(second)],
                          capture_output=True, text=True, timeout=600)
    text = (done.stdout + done.stderr).strip()
    shared = re.search(r"^comparing timesteps ([^;\n]*)", text, re.M)
    only_first = re.search(r"only in the first: ([^;\n]*)", text)
    only_second = re.search(r"only in the second: ([^;\n]*)", text)
    return done.returncode, text, {
        "shared": _timesteps(shared), "only_first": _timesteps(only_first),
        "only_second": _timesteps(only_second)}


def _timesteps(match):
    return [int(t) for t in re.findall(r"\d+", match.group(1))] if match else []


def first_record_difference(expected, actual, tolerance, what):
    """The first value of the run record that differs: timesteps, simulation
    time, digests (bitwise tolerances only), analysis results, reductions."""
    if expected.get("final_timestep") != actual.get("final_timestep"):
        return f"final timestep: {actual.get('final_timestep')} vs {what} {expected.get('final_timestep')}"
    if tolerance.differ(expected.get("simulation_time"), actual.get("simulation_time")):
        return f"simulation time: {actual.get('simulation_time')!r} vs {what} {expected.get('simulation_time')!r}"
    if tolerance.exact and expected.get("digests") != actual.get("digests"):
        return f"digests: {actual.get('digests')} vs {what} {expected.get('digests')}"
    for section in ("analysis", "reductions"):
        want, got = expected.get(section) or {}, actual.get(section) or {}
        if sorted(want) != sorted(got):
            return f"{section}: the run has {sorted(got)}, {what} {sorted(want)}"
        for name in want:
            a = want[name]["value"] if section == "reductions" else want[name]
            b = got[name]["value"] if section == "reductions" else got[name]
            if tolerance.differ(a, b):
                return f"{section[:-1] if section == 'reductions' else 'analysis'} '{name}': {b!r} vs {what} {a!r}"
    return None


def check_against_gold(setup, test, outcome, run_dir, record):
    gold = setup.gold_root / test.gold
    if not goldlib.exists(gold, test.record_only):
        relative = os.path.relpath(gold, setup.repo)
        raise RunFailed("no gold standard",
                        f"no gold standard in {relative} (make it with "
                        f"scripts/regression --only {test.gold} --update-gold, after checking the run)")
    if test.record_only:
        difference = first_record_difference(goldlib.load_record(gold), record, test.tolerance,
                                             "gold standard")
        if difference:
            raise RunFailed("run record differs from the gold standard", f"run record: {difference}")
        outcome.notes.append(f"gold: the run record {test.tolerance.describe()}")
        return
    code, text, steps = compare_archives(setup, gold, run_dir, test.tolerance)
    if code != 0:
        first = next((l for l in text.splitlines() if l.startswith(("different:", "not comparable:"))),
                     last_line(text))
        raise RunFailed("differs from the gold standard" if code == 1 else "not comparable with the gold standard",
                        f"against {os.path.relpath(gold, setup.repo)} "
                        f"(tessera-compare {' '.join(test.tolerance.compare_args())}): {first}")
    if steps["only_first"] or steps["only_second"]:
        raise RunFailed("other output timesteps than the gold standard",
                        f"output timesteps only in the gold standard: {steps['only_first'] or 'none'}; "
                        f"only in the run: {steps['only_second'] or 'none'}")
    difference = first_record_difference(goldlib.load_record(gold), record, test.tolerance,
                                         "gold standard")
    if difference:
        raise RunFailed("run record differs from the gold standard", f"run record: {difference}")
    whose = "" if test.gold == test.name else f" of {test.gold}"
    outcome.notes.append(f"gold{whose}: {len(steps['shared'])} outputs {test.tolerance.describe()}")


def check_restart(setup, test, outcome, work, run_dir, record):
    index = yaml.safe_load((run_dir / "index.yaml").read_text())
    checkpoints = sorted(e["timestep"] for e in index.get("checkpoints") or [])
    final = record["final_timestep"]
    if not checkpoints:
        raise RunFailed("no checkpoint to restart from",
                        "the run wrote no checkpoint: set checkpoint.timestep_interval in the test's "
                        "overrides, or no_restart: true")
    first = checkpoints[0]
    if first >= final:
        raise RunFailed("first checkpoint is the last timestep",
                        f"the first checkpoint is at timestep {first}, the run ends at {final}: "
                        "checkpoint earlier (checkpoint.timestep_interval)")
    restart_record = work / "restart.json"
    run_sus(setup, test, ["--record", str(restart_record), "--restart", str(run_dir),
                          "--checkpoint", str(first)], work, "restart")
    restarted = json.loads(restart_record.read_text())
    check_restart_began_at(run_dir, index, first, restarted)
    restarted_dir = pathlib.Path(restarted["output_directory"])
    code, text, steps = compare_archives(setup, run_dir, restarted_dir, EXACT)
    if code != 0:
        first_line = next((l for l in text.splitlines() if l.startswith(("different:", "not comparable:"))),
                          last_line(text))
        raise RunFailed(f"restart from {first} differs", f"restart from timestep {first}: {first_line}")
    if final not in steps["shared"]:
        raise RunFailed(f"restart from {first} did not reach {final}",
                        f"the restart's outputs: {steps['shared'] + steps['only_second']}")
    difference = first_record_difference(record, restarted, EXACT, "straight run")
    if difference:
        raise RunFailed(f"restart from {first} differs", f"restart from timestep {first}: run record: {difference}")
    outcome.notes.append(f"restart from {first} bitwise")


def check_restart_began_at(run_dir, index, first, restarted):
    """A deterministic run from timestep 0 gives the restart's bits too, so
    equal outputs prove nothing about the checkpoint: the restart must say
    that it began there (its run record's `restarted_from` and
    `first_timestep`, its index's `restarted_from`: the checkpoint file), and
    must have written its own run directory, not pointed at the straight
    run's (which would compare equal with itself)."""
    def same(a, b):
        return os.path.realpath(a) == os.path.realpath(b)

    note = f"restart from {first} ignored the checkpoint"
    if restarted.get("first_timestep") != first or not restarted.get("restarted_from") \
            or not same(restarted["restarted_from"], run_dir):
        raise RunFailed(note, f"restart from timestep {first} of {run_dir}: the run record says it began at "
                              f"timestep {json.dumps(restarted.get('first_timestep'))}, restarted_from "
                              f"{json.dumps(restarted.get('restarted_from'))}")
    if not restarted.get("output_directory"):
        raise RunFailed(f"restart from {first} wrote no output", "the restart's run record names no output directory")
    restarted_dir = pathlib.Path(restarted["output_directory"])
    if same(restarted_dir, run_dir):
        raise RunFailed(f"restart from {first} wrote no run directory of its own",
                        f"the restart's output directory is the straight run's, {run_dir}: "
                        "comparing it would compare the run with itself")
    restarted_index_path = restarted_dir / "index.yaml"
    restarted_index = yaml.safe_load(restarted_index_path.read_text()) if restarted_index_path.is_file() else {}
    checkpoint = next(e["file"] for e in index["checkpoints"] if e["timestep"] == first)
    began = (restarted_index or {}).get("restarted_from")
    if not began or not same(began, run_dir / checkpoint):
        raise RunFailed(note, f"restart from timestep {first}: {restarted_index_path} says restarted_from: "
                              f"{began}, not {run_dir / checkpoint}")


def check_performance(setup, outcome, gold):
    stored = goldlib.load_performance(gold)
    if not stored:
        outcome.notes.append("no stored time/memory")
        return
    margins = setup.margins
    wall, was = outcome.wall_seconds, stored.get("wall_seconds")
    if was and wall > was * (1 + margins.wall_time) and wall - was > margins.wall_time_floor_seconds:
        outcome.notes.append(f"WARNING slower: {wall:.1f} s vs {was:.1f} s stored (+{100 * (wall / was - 1):.0f} %)")
    memory, had = outcome.peak_memory_bytes, stored.get("peak_memory_bytes")
    if had and memory > had * (1 + margins.memory):
        outcome.notes.append(f"WARNING memory: {memory / 2**20:.0f} MiB vs {had / 2**20:.0f} MiB stored "
                             f"(+{100 * (memory / had - 1):.0f} %)")


def run_test(setup, test):
    outcome = Outcome(test)
    work = setup.work_root / test.name
    outcome.work_dir = work
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        record_path = work / "record.json"
        sets = [arg for override in test.overrides for arg in ("--set", override)]
        output = [] if test.record_only else ["--set", f"output.dir={work / 'run.tsa'}"]
        straight = run_sus(setup, test, ["--record", str(record_path), *sets, *output, str(test.deck)],
                           work, "run")
        record = json.loads(record_path.read_text())
        run_dir = pathlib.Path(record["output_directory"] or "")
        if not test.record_only and (not record["output_directory"] or not (run_dir / "index.yaml").is_file()):
            raise RunFailed("no output", "the run wrote no output: set output.timestep_interval "
                                         "in the test's overrides")
        outcome.wall_seconds = straight.seconds
        # Each rank's peak (getrusage in sus), else the job's largest process.
        outcome.peak_memory_bytes = max(record.get("peak_memory_bytes") or [straight.max_rss_bytes])
        # The gold and restart checks are independent: a failure of one
        # does not hide what the other finds.
        checks = []
        if test.no_gold:
            outcome.notes.append("no gold standard by design")
        elif not setup.update_gold or test.gold != test.name:
            checks.append(lambda: check_against_gold(setup, test, outcome, run_dir, record))
        if not test.no_restart:
            checks.append(lambda: check_restart(setup, test, outcome, work, run_dir, record))
        for check in checks:
            try:
                check()
            except RunFailed as failure:
                outcome.fail(failure.note, failure.detail, failure.result)
        gold = setup.gold_root / test.name
        if outcome.failed:
            pass
        elif setup.update_gold:
            goldlib.write(gold, run_dir, record_path, outcome.wall_seconds, outcome.peak_memory_bytes,
                          outputs=not test.no_gold and test.gold == test.name,
                          record_only=test.record_only)
            outcome.result = "UPDATED"
            outcome.notes.append(f"gold standard written ({goldlib.folder_bytes(gold) / 1024:.0f} KiB)"
                                 if (gold / goldlib.RECORD).is_file() else "time and memory stored")
        else:
            check_performance(setup, outcome, gold)
    except RunFailed as failure:
        outcome.fail(failure.note, failure.detail, failure.result)
        if outcome.wall_seconds is None:
            outcome.wall_seconds = failure.seconds
    if not outcome.failed and not setup.keep:
        shutil.rmtree(work, ignore_errors=True)
        outcome.work_dir = None
    return outcome
