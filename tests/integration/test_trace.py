"""sus --trace: the Chrome trace-event file's structure, every task of the
timestep graph once per step on the thread that runs it, kernels inside
their tasks, messages as matched arrows between ranks, an unwritable path
refused on every rank, and scripts/trace-plot rendering it.

usage: test_trace.py --sus S --mpirun M [--mpirun-flag F]... DECK TRACE_PLOT
"""
import collections
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from sus_runner import Checks, Sus, parse_common_args

STEPS = 3


def slices(events, **match):
    return [e for e in events if e["ph"] == "X" and all(e.get(k) == v for k, v in match.items())]


def check_trace(check, path, ranks, mode, label):
    trace = json.loads(path.read_text())
    events = trace.get("traceEvents", [])
    check(f"{label}: a traceEvents list and the graph of every rank",
          isinstance(events, list) and events and trace["otherData"]["ranks"] == ranks
          and len(trace["otherData"]["graphs"]) == ranks)
    check(f"{label}: every event has a known phase, a rank and a time",
          all(e["ph"] in "XMsf" and e["pid"] in range(ranks) and (e["ph"] == "M" or e["ts"] >= 0)
              for e in events))
    check(f"{label}: slices have a duration, a thread and a step",
          all(e["dur"] >= 0 and e["tid"] in (0, 1) and "step" in e["args"] for e in slices(events)))
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] in ("process_name", "thread_name")}
    check(f"{label}: each rank is a named process with named threads",
          all(names.get((r, None)) == f"rank {r}" and (r, 0) in names and (r, 1) in names
              for r in range(ranks)), names)

    for graph in trace["otherData"]["graphs"]:
        rank = graph["rank"]
        tasks = {t["id"]: t["name"] for t in graph["timestep_tasks"] if t["kind"] == "task"}
        reductions = {t["id"] for t in graph["timestep_tasks"] if t["kind"] == "reduction"}
        for step in range(1, STEPS + 1):
            seen = collections.Counter(e["args"]["id"] for e in slices(events, pid=rank, cat="task")
                                       if e["args"]["step"] == step)
            check(f"{label}: rank {rank} step {step}: every task of the graph once ({len(tasks)})",
                  tasks and seen == collections.Counter(tasks.keys()), f"{seen} vs {sorted(tasks)}")
            named = all(e["name"] == tasks.get(e["args"]["id"])
                        for e in slices(events, pid=rank, cat="task") if e["args"]["step"] == step)
            check(f"{label}: rank {rank} step {step}: task slices carry the task's name", named)
            combined = collections.Counter(e["args"]["id"] for e in slices(events, pid=rank, name="combine reduction")
                                           if e["args"]["step"] == step)
            check(f"{label}: rank {rank} step {step}: every reduction combined once",
                  combined == collections.Counter(reductions), f"{combined} vs {reductions}")
        steps = slices(events, pid=rank, name="timestep")
        check(f"{label}: rank {rank}: one timestep slice per step",
              sorted(e["args"]["id"] for e in steps) == list(range(1, STEPS + 1)))

    tasks = slices(events, cat="task")
    if mode in ("host", "sync"):
        # One thread schedules and runs everything (sync offloads each
        # kernel and waits for it).
        check(f"{label}: every task on the main thread", tasks and all(e["tid"] == 0 for e in tasks))
    else:
        host_tasks = [e for e in tasks if e["name"] == "Burgers::computeStableTimestep"]
        device_tasks = [e for e in tasks if e["name"] == "Burgers::timeAdvance"]
        # acc.async runs host tasks on whichever thread is free (the main
        # one, between its kernels).
        host_threads = {0, 1}
        check(f"{label}: device tasks on the main thread, host tasks on thread(s) {sorted(host_threads)}",
              host_tasks and device_tasks and all(e["tid"] in host_threads for e in host_tasks)
              and all(e["tid"] == 0 for e in device_tasks))
    kernels = slices(events, cat="kernel")
    inside = all(any(t["pid"] == k["pid"] and t["tid"] == k["tid"] and t["ts"] <= k["ts"] + 1e-3
                     and k["ts"] + k["dur"] <= t["ts"] + t["dur"] + 1e-3 for t in tasks) for k in kernels)
    check(f"{label}: every kernel lies inside a task on its thread", kernels and inside)

    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    ends = [e for e in events if e["ph"] == "f"]
    if ranks > 1:
        matched = all(e["id"] in starts and starts[e["id"]]["pid"] != e["pid"]
                      and starts[e["id"]]["ts"] <= e["ts"] + 1000.0 for e in ends)
        check(f"{label}: messages are arrows from one rank to another, sent before they arrive",
              ends and len(ends) == len(starts) and matched, f"{len(starts)} sent, {len(ends)} arrived")
        bound = all(any(s["pid"] == e["pid"] and s["tid"] == e["tid"] and s["ts"] <= e["ts"] <= s["ts"] + s["dur"]
                        for s in slices(events, name="message arrived")) for e in ends)
        check(f"{label}: each arrow ends inside a 'message arrived' slice", bound)
    else:
        check(f"{label}: one rank sends no messages", not starts and not ends)

    copies = slices(events, name="eager ghost copies")
    if mode == "async" and ranks == 1:
        # One device thread and a core left over: the control thread spins
        # there and makes local ghost copies while kernels run; those it
        # leaves untaken through a kernel (descheduled on a loaded machine)
        # the main thread makes. Which thread makes how many is up to the
        # system's scheduler, so the trace only shows that both may; that
        # the control thread does is test_DeviceScheduler's (deterministic).
        cpus = len(os.sched_getaffinity(0))
        copiers = {0, 1} if cpus >= 2 else {0}
        device_tasks = slices(events, cat="task", tid=0)
        during = [c for c in copies if c["tid"] == 1 and any(
            t["ts"] <= c["ts"] <= t["ts"] + t["dur"] for t in device_tasks)]
        check(f"{label}: local ghost copies each step, on thread(s) {sorted(copiers)}",
              len(copies) >= STEPS and all(c["tid"] in copiers for c in copies),
              f"{len(copies)} copy slices, {len(during)} on the control thread during a kernel")
    elif mode in ("host", "sync"):
        check(f"{label}: local ghost copies on the main thread", all(c["tid"] == 0 for c in copies))
    return trace


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, trace_plot = rest[0], rest[1]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    with tempfile.TemporaryDirectory(prefix="tessera-trace-") as tmp:
        work = pathlib.Path(tmp)
        cases = [("async", "async", 2, ["scheduler.patch_groups=false"]),
                 # 64 kernels a step, of 32^3 cells: long enough for the
                 # control thread to work in.
                 ("async-1-rank", "async", 1, ["scheduler.patch_groups=false",
                                               "grid.level.resolution=[128,128,128]",
                                               "grid.level.patches=[4,4,4]"]),
                 ("sync", "sync", 2, []), ("host", "host", 1, [])]
        for label, mode, ranks, sets in cases:
            path = work / f"{label}.json"
            run = sus.run(deck, ranks=ranks, sets=sets, timeout=120,
                          options=["--scheduler", mode, "--max-timesteps", str(STEPS), "--trace", str(path)])
            check(f"{label}: sus --trace on {ranks} rank(s) exits 0", run.returncode == 0, run.describe())
            if run.returncode == 0:
                check_trace(check, path, ranks, mode, label)
        untraced = sus.run(deck, ranks=1, options=["--max-timesteps", "1"], cwd=tmp)
        check("without --trace no file is written", untraced.returncode == 0 and
              sorted(p.name for p in work.iterdir()) == sorted(f"{case[0]}.json" for case in cases))

        bad = work / "no-such-directory" / "trace.json"
        run = sus.run(deck, ranks=2, options=["--max-timesteps", "1", "--trace", str(bad)], timeout=60)
        check("an unwritable trace path stops every rank with exit 1, naming the path",
              run.returncode == 1 and str(bad) in run.stderr and "timestep" not in run.stdout, run.describe())

        png = work / "async.png"
        plot = subprocess.run([trace_plot, str(work / "async.json"), "-o", str(png),
                               "--steps", "2:3"], capture_output=True, text=True, timeout=120)
        check("scripts/trace-plot renders a PNG", plot.returncode == 0 and png.exists()
              and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", plot.stdout + plot.stderr)
    check.finish()


if __name__ == "__main__":
    main()
