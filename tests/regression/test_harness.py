"""Tests of the regression harness itself (scripts/regression): a slightly
perturbed coefficient fails the gold comparison with the comparer's first
differing cell (and passes under a loose tolerance), a missing gold standard
is a failure that says so, --update-gold writes a gold standard that then
passes, stored time and memory turn into warnings, a run without checkpoints
fails its restart check, so does a restart that ignores its checkpoint (a
run from timestep 0 gives the same bits) or shows the straight run's
directory as its own, a hung run is killed at its timeout with all its ranks,
and mistakes in a test list are errors naming the file, line and key.

usage: test_harness.py --build-dir B --work-dir W --mpirun M [--mpirun-flag=F]... --work DIR

DIR is emptied first and removed at the end.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

import yaml

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
REGRESSION = REPO / "scripts" / "regression"
GOLD = HERE / "gold"


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, what, ok, detail=""):
        print(("ok:   " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            self.failures += 1
            if detail:
                print("      " + detail.replace("\n", "\n      "))


def main():
    args, work = [], None
    it = iter(sys.argv[1:])
    for arg in it:
        if arg == "--work":
            work = pathlib.Path(next(it))
        elif arg == "--work-dir":
            next(it)  # each case below gets its own
        else:
            args.append(arg)
    if work is None:
        sys.exit(__doc__)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        failures = run_checks(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


# A stand-in for build/StandAlone/sus that runs the real one, except that in
# a restart (--restart RUN_DIR --checkpoint N) it misbehaves as MODE says:
# "ignore" runs RUN_DIR's stored deck from timestep 0 instead, "same_dir"
# restarts properly but then names the straight run's directory as its
# output in the run record; "honest" changes nothing.
FAKE_SUS = """#!/usr/bin/python3
import json, os, subprocess, sys
REAL, MODE = {real!r}, {mode!r}
args = sys.argv[1:]
if MODE == "honest" or "--restart" not in args:
    os.execv(REAL, [REAL, *args])
at = args.index("--restart")
run_dir = args[at + 1]
if MODE == "ignore":
    rest = [a for i, a in enumerate(args) if i not in (at, at + 1)]
    if "--checkpoint" in rest:
        c = rest.index("--checkpoint")
        del rest[c:c + 2]
    os.execv(REAL, [REAL, *rest, os.path.join(run_dir, "input.yaml")])
done = subprocess.run([REAL, *args])
if done.returncode == 0:
    path = args[args.index("--record") + 1]
    with open(path) as f:
        record = json.load(f)
    record["output_directory"] = os.path.realpath(run_dir)
    with open(path, "w") as f:
        json.dump(record, f)
sys.exit(done.returncode)
"""


def fake_build(work, build, mode):
    """A build folder whose sus is FAKE_SUS in MODE around BUILD's, with
    BUILD's tessera-compare."""
    fake = work / f"fake_build_{mode}"
    (fake / "StandAlone").mkdir(parents=True)
    sus = fake / "StandAlone" / "sus"
    sus.write_text(FAKE_SUS.format(real=str(build / "StandAlone" / "sus"), mode=mode))
    sus.chmod(0o755)
    (fake / "StandAlone" / "tessera-compare").symlink_to(build / "StandAlone" / "tessera-compare")
    return fake


def build_dir(common):
    """The --build-dir among the harness's options (the last one wins)."""
    found = None
    for i, arg in enumerate(common):
        if arg == "--build-dir" and i + 1 < len(common):
            found = common[i + 1]
        elif arg.startswith("--build-dir="):
            found = arg.split("=", 1)[1]
    return pathlib.Path(found or REPO / "build").resolve()


# Open MPI's ranks run in process groups of their own and can outlive a
# killed mpirun by a moment, so their end is waited for, not assumed after a
# fixed sleep. Only a real leak (a rank nobody killed, computing on) lasts
# this long.
LEAK_SECONDS = 30


def pids_matching(pattern):
    done = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True, timeout=30)
    return [int(p) for p in done.stdout.split()]


def processes_gone(pattern, seconds):
    """Polls until no process's command line contains `pattern`, for at most
    `seconds`. Returns those still running then (a leak), after killing them
    so that a failing check leaves nothing behind."""
    deadline = time.monotonic() + seconds
    left = pids_matching(pattern)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = pids_matching(pattern)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def the_local_test(name):
    """A test of the real list, as a plain mapping (anchors merged)."""
    listed = yaml.safe_load((HERE / "tests.yaml").read_text())
    test = next(t for t in listed["groups"]["local"] if t["name"] == name)
    merged = dict(listed.get("defaults") or {})
    merged.update(test)
    merged["overrides"] = dict(test.get("overrides") or {})
    return merged


def run_checks(common, work):
    check = Checks()
    counter = iter(range(1000))

    def harness(tests, options=(), gold=GOLD, margins=None, list_text=None, env=None):
        n = next(counter)
        list_path = work / f"list{n}.yaml"
        if list_text is None:
            document = {"groups": {"local": tests}}
            if margins:
                document["margins"] = margins
            list_text = yaml.safe_dump(document, sort_keys=False)
        list_path.write_text(list_text)
        command = [str(REGRESSION), *common, "--work-dir", str(work / f"runs{n}"), "--list", str(list_path),
                   "--gold-dir", str(gold), *options]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, **(env or {})))
        return done.returncode, done.stdout + done.stderr, list_path

    def row(output, name):
        found = re.search(rf"^{re.escape(name)}\s+\d+\s+\d+\s+\w+\s+(\w+)\s", output, re.M)
        return found.group(1) if found else None

    # 1. The gold standard of burgers_np1_host with the real list's settings passes ...
    base = the_local_test("burgers_np1_host")
    base["no_restart"] = True
    code, out, _ = harness([base])
    check("an unperturbed copy of burgers_np1_host passes against its gold standard",
          code == 0 and row(out, "burgers_np1_host") == "PASS", out)

    # ... and fails when the viscosity changes in its 9th digit, naming the first differing cell.
    perturbed = json.loads(json.dumps(base))
    perturbed["overrides"]["burgers.viscosity"] = 0.0100000001
    code, out, _ = harness([perturbed])
    cell = re.search(r"different: 'u' at timestep (\d+) \(time [^)]*\), cell \[?\(?-?\d+, ?-?\d+, ?-?\d+\)?\]?: "
                     r"(\S+) vs (\S+) \(difference (\S+)\)", out)
    check("a perturbed viscosity fails the gold comparison with the first differing cell and values",
          code == 1 and row(out, "burgers_np1_host") == "FAIL" and "differs from the gold standard" in out
          and cell is not None and cell.group(2) != cell.group(3), out)

    # Under a tolerance wider than the perturbation it passes (fields, analysis and reductions).
    loose = json.loads(json.dumps(perturbed))
    loose["tolerance"] = {"rel": 1e-4, "abs": 1e-12}
    code, out, _ = harness([loose])
    check("the perturbed run passes with tolerance rel 1e-4",
          code == 0 and row(out, "burgers_np1_host") == "PASS" and "rel 0.0001" in out, out)

    # 2. A missing gold standard is a failure that says so.
    empty_gold = work / "gold"
    empty_gold.mkdir()
    orphan = dict(base, name="burgers_without_gold")
    code, out, _ = harness([orphan], gold=empty_gold)
    check("a missing gold standard fails and is named as missing",
          code == 1 and row(out, "burgers_without_gold") == "FAIL" and "no gold standard in" in out, out)

    # 3. --update-gold writes it (outputs, no checkpoints, the record, time and memory) ...
    fresh = dict(the_local_test("burgers_np2_async_sfc"), name="fresh_gold")
    code, out, _ = harness([fresh], ["--update-gold"], gold=empty_gold)
    written = empty_gold / "fresh_gold"
    files = sorted(p.relative_to(written).as_posix() for p in written.rglob("*") if p.is_file())
    check("--update-gold runs the restart check and writes the gold standard",
          code == 0 and row(out, "fresh_gold") == "UPDATED" and "restart from" in out
          and {"index.yaml", "input.yaml", "record.json", "performance.json"} <= set(files)
          and any(f.endswith(".h5") for f in files) and not any(f.startswith("checkpoints") for f in files),
          f"{files}\n{out}")
    code, out, _ = harness([fresh], gold=empty_gold)
    check("... which the next run passes, restart included",
          code == 0 and row(out, "fresh_gold") == "PASS" and "restart from" in out and "bitwise" in out, out)

    # ... and stored time and memory far below the run's become warnings, not failures.
    performance = written / "performance.json"
    stored = json.loads(performance.read_text())
    performance.write_text(json.dumps(dict(stored, wall_seconds=0.001, peak_memory_bytes=1024)))
    code, out, _ = harness([fresh], gold=empty_gold, margins={"wall_time_floor_seconds": 0.0})
    check("a slower and bigger run than stored passes with two warnings",
          code == 0 and row(out, "fresh_gold") == "PASS" and "WARNING slower" in out
          and "WARNING memory" in out, out)

    # 4. A run without checkpoints fails its restart check (and says how to fix it).
    unsaved = dict(fresh, name="no_checkpoints")
    unsaved["overrides"] = {k: v for k, v in fresh["overrides"].items() if not k.startswith("checkpoint.")}
    code, out, _ = harness([unsaved], gold=empty_gold)
    check("a run that writes no checkpoint fails the restart check",
          code == 1 and row(out, "no_checkpoints") == "FAIL" and "no checkpoint to restart from" in out, out)

    # 4a. A restart that ignores its checkpoint gives the straight run's bits
    # (the run is deterministic), so equal outputs are not enough: the harness
    # fails it because it did not begin at the checkpoint. A restart that
    # names the straight run's directory as its own fails too (it would
    # compare that run with itself). The same stand-in passing on its honest
    # setting shows that the failures are the misbehaviour's.
    restartable = dict(the_local_test("burgers_np1_host"), name="restart_check", no_gold=True)
    restartable.pop("no_restart", None)
    real_build = build_dir(common)
    code, out, _ = harness([restartable], ["--build-dir", str(fake_build(work, real_build, "honest"))],
                           gold=empty_gold)
    check("a restart through the stand-in sus that does not misbehave passes",
          code == 0 and row(out, "restart_check") == "PASS" and "bitwise" in out, out)
    code, out, _ = harness([restartable], ["--build-dir", str(fake_build(work, real_build, "ignore"))],
                           gold=empty_gold)
    check("a restart that runs from timestep 0 instead of its checkpoint fails the restart check",
          code == 1 and row(out, "restart_check") == "FAIL" and re.search(
              r"restart from \d+ ignored the checkpoint", out) is not None
          and "began at timestep 0" in out, out)
    code, out, _ = harness([restartable], ["--build-dir", str(fake_build(work, real_build, "same_dir"))],
                           gold=empty_gold)
    check("a restart that names the straight run's directory as its own fails the restart check",
          code == 1 and row(out, "restart_check") == "FAIL"
          and "wrote no run directory of its own" in out, out)

    # 4b. A record_only test (a run without an archive: here the GEMM's, its
    # outputs and checkpoints left out) keeps the run record as its gold
    # standard, and fails when the run's digest differs from it.
    gemm = dict(the_local_test("gemm_np2_async"), name="gemm_record", record_only=True)
    gemm["overrides"] = {key: value for key, value in gemm["overrides"].items()
                         if not key.startswith(("output.", "checkpoint."))}
    code, out, _ = harness([gemm], ["--update-gold"], gold=empty_gold)
    written = empty_gold / "gemm_record"
    files = sorted(p.name for p in written.iterdir()) if written.is_dir() else []
    check("--update-gold of a record_only test stores the record and the performance only",
          code == 0 and row(out, "gemm_record") == "UPDATED" and files == ["performance.json", "record.json"],
          f"{files}\n{out}")
    changed = json.loads(json.dumps(gemm))
    changed["overrides"]["gemm.beta"] = -2.0
    code, out, _ = harness([changed], gold=empty_gold)
    check("a record_only run with another beta fails on the digest of C",
          code == 1 and row(out, "gemm_record") == "FAIL" and "run record differs" in out
          and "C" in out, out)

    # 5. A run that outlives its timeout is killed, and nothing of it is left running.
    slow = dict(base, name="too_slow", timeout=1, no_gold=True)
    slow["overrides"] = {"grid.level.resolution": [96, 96, 96], "time.max_timesteps": 100000,
                         "time.max_time": 1.0e9, "output.timestep_interval": 1000}
    # Its temporary files (Open MPI's session directory) go to a folder of
    # the test's, which the killed run must leave empty.
    temporary = work / "tmp"
    temporary.mkdir()
    started = time.monotonic()
    code, out, _ = harness([slow], env={"TMPDIR": str(temporary)})
    took = time.monotonic() - started
    left = processes_gone(str(work / "runs"), LEAK_SECONDS)
    check("a run past its timeout is a TIMEOUT failure and leaves no process behind",
          code == 1 and row(out, "too_slow") == "TIMEOUT" and "timed out after 1 s" in out and not left,
          f"took {took:.1f} s, still running after {LEAK_SECONDS} s: {left}\n{out}")
    debris = sorted(str(p.relative_to(temporary)) for p in temporary.rglob("*"))
    check("... and no temporary files (Open MPI's session directory)", not debris, f"left: {debris}")

    # 6. Mistakes in a list are errors naming the file, line and key.
    good = yaml.safe_dump({"groups": {"local": [dict(base)]}}, sort_keys=False)
    cases = [
        ("an unknown key", good.replace("no_restart:", "no_restrat:"),
         r":\d+:\d+: unknown key 'no_restrat' in a test of group 'local' \(did you mean 'no_restart'\?\)"),
        ("an unknown scheduler", good.replace("scheduler: host", "scheduler: hots"),
         r":\d+:\d+: test 'burgers_np1_host': unknown scheduler 'hots' \(did you mean 'host'\?\)"),
        ("zero ranks", good.replace("ranks: 1", "ranks: 0"), r":\d+:\d+: 'ranks' must be an integer >= 1"),
        ("a reserved override", good.replace("overrides:", "overrides:\n      output.dir: x"),
         r":\d+:\d+: test 'burgers_np1_host': 'output.dir' is set by the harness"),
        ("a missing deck", good.replace("inputs/Burgers/burgers.yaml", "inputs/Burgers/burger.yaml"),
         r":\d+:\d+: test 'burgers_np1_host': no deck 'inputs/Burgers/burger.yaml'"),
        ("a bad tolerance", good.replace("no_restart: true", "no_restart: true\n    tolerance: loose"),
         r":\d+:\d+: test 'burgers_np1_host': tolerance must be 'exact' or a mapping"),
    ]
    for what, text, expected in cases:
        code, out, path = harness(None, list_text=text)
        check(f"a list with {what} is rejected with file:line:column",
              code == 2 and re.search(re.escape(str(path)) + expected, out) is not None, f"{text}\n{out}")
    code, out, path = harness([base], ["--only", "burgers_np1_hots"])
    check("an unknown --only name is rejected with a suggestion",
          code == 2 and "no test 'burgers_np1_hots'" in out and "did you mean 'burgers_np1_host'" in out, out)

    # 7. The gold folder stays small.
    size = sum(p.stat().st_size for p in GOLD.rglob("*") if p.is_file())
    check(f"the gold folder holds {size / 2**20:.2f} MiB, under 5 MiB", size < 5 * 2**20)
    return check.failures


if __name__ == "__main__":
    main()
