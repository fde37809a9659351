"""Documented behaviour of sus that no other test covers (docs/user-guide.md,
docs/archiver.md, docs/threading.md):

- the device thread count: `--nthreads N` (alias `--threads`) over
  `scheduler.device_threads` (in the deck file) over OMP_NUM_THREADS. What
  shows it: on a host execution space a stencil is cut along z so that each
  device thread gets a tile ("z cut only to give each thread a tile",
  threading.md), so with a cache budget the whole patch fits, a patch of more
  than 1024 cells runs as exactly one tile per thread each step (the `tiles`
  of `--stats`). The digest is the same for any thread count;
- checkpoints: `checkpoint.cycle` keeps the newest `cycle` (index and files),
  `checkpoint.interval` (simulated time), `checkpoint.walltime_interval`
  (1e-9 s: every step), and an interval together with `timestep_interval`;
- `sus --restart DIR --checkpoint N` naming no checkpoint: exit 1, listing the
  available ones, printed once with two ranks;
- `output.interval`, `output.output_initial: false`, `output.output_last:
  false`, an output section without an interval: which timesteps the index
  lists (and which files exist);
- `sus --stats FILE`: every documented key in each JSON line, one line per
  timestep, timesteps consecutive, times consistent with delt;
- `--scheduler host|sync|async` over the deck's `scheduler.type` (the log and
  the summary name the mode; every mode blocks its stencils for the cache on
  this CPU build, `scheduler.tiling=false` runs them untiled; equal digests), and a list
  (`host,sync,async`): the timesteps run in each mode in turn (`--stats`
  names each step's mode) and give the plain run's digest; bad lists refused;
- Burgers refuses periodic axes: exit 1 with a FILE:LINE:COLUMN message (or,
  for an override, the override named);
- `--log-level error|warning|info|debug` and `--quiet`: which of the [WARN],
  [INFO] and [DEBUG] lines each prints (rank 0's only), errors and the report
  always;
- `time.delt_min` above the stable step: every step is delt_min (the last one
  shortened to max_time), each raised step logs one warning, and the run goes
  on; below it, no warning;
- a restart whose stored deck has no `output.dir` writes the next version
  beside the run it restarts (wherever the working directory is) and moves
  the link; a run directory not named like one (a copy) needs `output.dir`.

usage: test_documented_options.py --sus S --mpirun M [--mpirun-flag=F]... DECK

Everything is written into a temporary directory that is removed at the end.
"""
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from sus_runner import load_index, Checks, Sus, SusRun, parse_common_args

SMALL = ["grid.level.resolution=[16,16,16]"]
# 9 steps to time 0.12 on the 16^3 grid; 0.035 falls between steps 2|3, 4|5 and 7|8 and not at the end.
TO_012 = [*SMALL, "time.max_time=0.12"]
TIME_INTERVAL = 0.035
STATS_KEYS = ["timestep", "time", "delt", "wall_seconds", "scheduler", "device_busy_seconds", "task_seconds",
              "mpi_wait_seconds",
              "pack_unpack_seconds", "comm_work_seconds", "comm_overlapped_seconds", "overlap_fraction", "tasks",
              "tiles", "kernels", "messages_sent", "bytes_sent", "group_refinements", "swept_averages"]
THREE_STEPS = "3 steps on 16^3 (any layout, threads, mode)"  # the runs that must share one digest
COUNTERS = ["timestep", "tasks", "tiles", "kernels", "messages_sent", "bytes_sent", "group_refinements",
            "swept_averages"]
NUMBERS = [key for key in STATS_KEYS if key != "scheduler"]


def read_stats(path):
    """The JSON lines of a --stats file (an empty list if it is missing or not JSON lines)."""
    try:
        return [json.loads(line) for line in path.read_text().splitlines()]
    except (OSError, ValueError):
        return []


def crossings(times, interval):
    """Timesteps whose step reached or passed a multiple of interval (times[0] is the initial time)."""
    return [step for step in range(1, len(times))
            if math.floor(times[step] / interval) > math.floor(times[step - 1] / interval)]


def unambiguous(times, interval):
    """No time lies so near a multiple of interval that rounding could move it across."""
    return all(abs(t / interval - round(t / interval)) > 1e-6 for t in times[1:])


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck = pathlib.Path(rest[0]).resolve()  # the runs start in the temporary directory
    sus_path = os.path.abspath(sus_path) if os.sep in sus_path else sus_path
    with tempfile.TemporaryDirectory(prefix="tessera-options-") as tmp:
        run_checks(Sus(sus_path, mpirun, flags), deck, pathlib.Path(tmp))


def run_checks(sus, deck, work):
    check = Checks()
    deck_text = deck.read_text()

    def run(ranks=1, sets=(), options=(), threads=1, quiet=True, deck_path=deck, cwd=work):
        """sus under mpirun in the work directory; quiet=False keeps the [INFO] lines."""
        command = [arg for arg in sus.command(str(deck_path) if deck_path else None, ranks, sets, options)
                   if quiet or arg != "--quiet"]
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false")
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
        return SusRun(done.returncode, done.stdout, done.stderr)

    def variant(name, old, new):
        """A copy of the deck with one piece of text replaced (which must occur exactly once)."""
        count = deck_text.count(old)
        check(f"the deck holds {old.strip()!r} once, for {name}", count == 1, f"found {count} times")
        path = work / name
        path.write_text(deck_text.replace(old, new))
        return path

    first_digests = {}

    def same_digest(group, result):
        """The run printed digests, and the same as the group's first run."""
        reference = first_digests.setdefault(group, result.digests)
        return bool(result.digests) and result.digests == reference

    # --- device threads -------------------------------------------------------------------------
    one_patch = [*SMALL, "grid.level.patches=[1,1,1]", "scheduler.cache_bytes=67108864"]
    threads2 = variant("threads2.yaml", "scheduler:\n", "scheduler:\n  device_threads: 2\n")
    threads1 = variant("threads1.yaml", "scheduler:\n", "scheduler:\n  device_threads: 1\n")
    cases = [  # (name, OMP_NUM_THREADS, deck, options, device threads)
        ("OMP_NUM_THREADS=1", 1, deck, [], 1),
        ("OMP_NUM_THREADS=2", 2, deck, [], 2),
        ("--nthreads 2 over OMP_NUM_THREADS=1", 1, deck, ["--nthreads", "2"], 2),
        ("--threads 2 (alias) over OMP_NUM_THREADS=1", 1, deck, ["--threads", "2"], 2),
        ("--nthreads 1 over OMP_NUM_THREADS=2", 2, deck, ["--nthreads", "1"], 1),
        ("scheduler.device_threads: 2 over OMP_NUM_THREADS=1", 1, threads2, [], 2),
        ("scheduler.device_threads: 1 over OMP_NUM_THREADS=2", 2, threads1, [], 1),
        ("--nthreads 2 over scheduler.device_threads: 1", 1, threads1, ["--nthreads", "2"], 2),
        ("--nthreads 1 over scheduler.device_threads: 2", 2, threads2, ["--nthreads", "1"], 1),
    ]
    for name, omp, path, options, want in cases:
        stats = work / "threads.jsonl"
        result = run(sets=one_patch, threads=omp, deck_path=path,
                     options=["--max-timesteps", "3", "--stats", str(stats), *options])
        tiles = [line.get("tiles") for line in read_stats(stats)]
        check(f"threads: {name}: exit 0, {want} tile(s) per step (one per device thread), the same digest",
              result.returncode == 0 and tiles == [want] * 3 and same_digest(THREE_STEPS, result),
              f"tiles per step {tiles}, digests {result.digests} vs {first_digests.get(THREE_STEPS)}\n"
              f"{result.describe()}")

    # --- checkpoints: cycle, interval, walltime_interval ------------------------------------------
    def archive(name, sets, ranks=1):
        """A run writing into work/NAME.tsa; returns (result, run directory, index, step times from --stats)."""
        stats = work / f"{name}.jsonl"
        base = work / f"{name}.tsa"
        result = run(ranks=ranks, sets=[*sets, f"output.dir={base}"], options=["--stats", str(stats)])
        directory = base.resolve()
        index = load_index(directory / "index.yaml") if (directory / "index.yaml").is_file() else \
            {"outputs": [], "checkpoints": []}
        times = [0.0] + [line["time"] for line in read_stats(stats)]
        check(f"{name}: exit 0, one stats line per step",
              result.returncode == 0 and len(times) - 1 == result.timesteps, result.describe())
        return result, directory, index, times

    def files(directory, pattern):
        return sorted(p.name for p in directory.glob(pattern))

    result, cycled, index, _ = archive("cycle3", [*SMALL, "checkpoint.timestep_interval=1", "checkpoint.cycle=3",
                                                  "time.max_timesteps=7", "time.max_time=1.0"])
    kept = [t for t, *_ in index["checkpoints"]]
    check("checkpoint.cycle 3, a checkpoint every step of 7: the index keeps 5, 6, 7", kept == [5, 6, 7], str(index))
    check("checkpoint.cycle 3: only the files of 5, 6, 7 remain in checkpoints/",
          files(cycled / "checkpoints", "*") == ["t00005.h5", "t00006.h5", "t00007.h5"],
          str(files(cycled / "checkpoints", "*")))
    result, directory, index, _ = archive("cycle_default", [*SMALL, "checkpoint.timestep_interval=1",
                                                            "time.max_timesteps=5", "time.max_time=1.0"])
    check("checkpoint.cycle defaults to 2: checkpoints 4 and 5 remain (index and files)",
          [t for t, *_ in index["checkpoints"]] == [4, 5]
          and files(directory / "checkpoints", "*") == ["t00004.h5", "t00005.h5"],
          f"{index}\n{files(directory / 'checkpoints', '*')}")

    result, directory, index, times = archive("checkpoint_time", [*TO_012, f"checkpoint.interval={TIME_INTERVAL}",
                                                                  "checkpoint.cycle=100"])
    want = crossings(times, TIME_INTERVAL)
    check(f"the steps' times make checkpoint.interval {TIME_INTERVAL} a meaningful test",
          unambiguous(times, TIME_INTERVAL) and 2 <= len(want) < len(times) - 2, f"times {times}, due {want}")
    check(f"checkpoint.interval {TIME_INTERVAL}: checkpoints where the time reaches a multiple ({want})",
          [t for t, *_ in index["checkpoints"]] == want
          and files(directory / "checkpoints", "*") == [f"t{t:05d}.h5" for t in want], str(index))
    check("checkpoint.interval: the index's checkpoint times are the steps' times",
          all(abs(time - times[t]) <= 1e-8 * max(1.0, time) for t, time, *_ in index["checkpoints"]), str(index))

    result, directory, index, times = archive("checkpoint_both", [*TO_012, f"checkpoint.interval={TIME_INTERVAL}",
                                                                  "checkpoint.timestep_interval=4",
                                                                  "checkpoint.cycle=100"])
    want = sorted(set(crossings(times, TIME_INTERVAL)) | {t for t in range(1, len(times)) if t % 4 == 0})
    check(f"checkpoint.interval and timestep_interval 4: a checkpoint when either is due ({want})",
          [t for t, *_ in index["checkpoints"]] == want, str(index))

    result, directory, index, times = archive("walltime", [*SMALL, "checkpoint.walltime_interval=1e-9",
                                                           "checkpoint.cycle=100", "time.max_timesteps=5",
                                                           "time.max_time=1.0"], ranks=2)
    check("checkpoint.walltime_interval 1e-9 (2 ranks): a checkpoint after every step, none at 0",
          [t for t, *_ in index["checkpoints"]] == [1, 2, 3, 4, 5]
          and files(directory / "checkpoints", "*") == [f"t{t:05d}.h5" for t in range(1, 6)], str(index))

    # --- a restart from a checkpoint that does not exist ------------------------------------------
    for step in (4, 8):
        missing = run(ranks=2, deck_path=None, options=["--restart", str(cycled), "--checkpoint", str(step)])
        errors = [line for line in missing.stderr.splitlines() if line.startswith("sus: error:")]
        check(f"--restart --checkpoint {step} (pruned or never written): exit 1, one message listing 5, 6, 7",
              missing.returncode == 1 and len(errors) == 1 and not missing.digests
              and f"'{cycled}' has no checkpoint at timestep {step} (available: 5, 6, 7)" in errors[0],
              missing.describe())

    # --- outputs: interval, output_initial, output_last -------------------------------------------
    output_cases = [  # (name, settings, the timesteps written given the run's times and last step)
        ("output_plain", [], lambda times, last: [0, last]),
        ("output_interval", [f"output.interval={TIME_INTERVAL}"],
         lambda times, last: [0, *crossings(times, TIME_INTERVAL), last]),
        ("output_no_initial", [f"output.interval={TIME_INTERVAL}", "output.output_initial=false"],
         lambda times, last: [*crossings(times, TIME_INTERVAL), last]),
        ("output_no_last", [f"output.interval={TIME_INTERVAL}", "output.output_last=false"],
         lambda times, last: [0, *crossings(times, TIME_INTERVAL)]),
        ("output_steps_neither", ["output.timestep_interval=3", "output.output_initial=false",
                                  "output.output_last=false"], lambda times, last: [3, 6, 9]),
    ]
    for name, sets, expect in output_cases:
        result, directory, index, times = archive(name, [*TO_012, *sets])
        last = len(times) - 1
        want = expect(times, last)
        written = [t for t, *_ in index["outputs"]]
        check(f"{name} {sets}: the index lists outputs {want} (last step {last}) and those files exist",
              last == 9 and TIME_INTERVAL * math.floor(times[last] / TIME_INTERVAL) <= times[last - 1]
              and written == want and files(directory, "t*.h5") == [f"t{t:05d}.h5" for t in want]
              and not index["checkpoints"], f"times {times}\nindex {index}\nfiles {files(directory, '*')}")

    # --- --stats -----------------------------------------------------------------------------------
    for ranks in (1, 2):
        stats = work / f"stats{ranks}.jsonl"
        result = run(ranks=ranks, sets=TO_012, options=["--stats", str(stats)])
        lines = read_stats(stats)
        check(f"--stats on {ranks} rank(s): exit 0 and one JSON line per timestep ({result.timesteps})",
              result.returncode == 0 and result.timesteps == 9 and len(lines) == 9, result.describe())
        check(f"--stats on {ranks} rank(s): every line has exactly the documented keys",
              lines and all(sorted(line) == sorted(STATS_KEYS) for line in lines),
              str([sorted(set(STATS_KEYS) ^ set(line)) for line in lines]))
        check(f"--stats on {ranks} rank(s): counters are integers, the rest non-negative numbers",
              lines and all(isinstance(line.get(key), int) for line in lines for key in COUNTERS)
              and all(isinstance(line.get(key), (int, float)) and line.get(key) >= 0
                      for line in lines for key in NUMBERS), str(lines[:1]))
        check(f"--stats on {ranks} rank(s): every line names the deck's scheduler (async)",
              lines and all(line.get("scheduler") == "async" for line in lines), str(lines[:1]))
        check(f"--stats on {ranks} rank(s): timesteps 1, 2, ... 9 in order",
              [line.get("timestep") for line in lines] == list(range(1, 10)), str(lines))
        times = [0.0] + [line.get("time", 0.0) for line in lines]
        check(f"--stats on {ranks} rank(s): each time is the previous plus delt, the last is max_time 0.12",
              lines and all(abs(times[i] + lines[i]["delt"] - times[i + 1]) <= 1e-8 for i in range(len(lines)))
              and abs(times[-1] - 0.12) <= 1e-9, str(times))
        check(f"--stats on {ranks} rank(s): every step ran tasks and kernels; rank 0 "
              f"{'sends ghost messages' if ranks > 1 else 'sends nothing'}",
              lines and all(line["tasks"] > 0 and line["kernels"] > 0 for line in lines)
              and all((line["messages_sent"] > 0 and line["bytes_sent"] > 0) if ranks > 1
                      else (line["messages_sent"] == 0 and line["bytes_sent"] == 0) for line in lines), str(lines))
        check(f"--stats on {ranks} rank(s): one level: no refinements, no averages onto a coarser level",
              lines and all(line["group_refinements"] == 0 and line["swept_averages"] == 0 for line in lines),
              str(lines[:1]))
        check(f"--stats on {ranks} rank(s): overlap_fraction is a fraction",
              lines and all(0.0 <= line["overlap_fraction"] <= 1.0 for line in lines), str(lines))

    # --- --scheduler over scheduler.type -----------------------------------------------------------
    host_deck = variant("host.yaml", "  type: async\n", "  type: host\n")
    scheduler_cases = [  # (name, ranks, deck, sets, options, the mode that must run)
        ("the deck's type: async", 2, deck, [], [], "async"),
        ("a deck with type: host", 1, host_deck, [], [], "host"),
        ("--scheduler host over the deck's async", 2, deck, [], ["--scheduler", "host"], "host"),
        ("--scheduler sync over the deck's async", 1, deck, [], ["--scheduler", "sync"], "sync"),
        ("--scheduler async over a deck's host", 1, host_deck, [], ["--scheduler", "async"], "async"),
        ("--scheduler sync over --set scheduler.type=host", 2, deck, ["scheduler.type=host"],
         ["--scheduler", "sync"], "sync"),
        ("--scheduler host with scheduler.tiling=false", 1, deck, ["scheduler.tiling=false"],
         ["--scheduler", "host"], "host"),
    ]
    for name, ranks, path, sets, options, mode in scheduler_cases:
        result = run(ranks=ranks, sets=[*SMALL, *sets], options=["--max-timesteps", "3", *options], quiet=False,
                     deck_path=path)
        logged = re.findall(r"^\[INFO\] scheduler: (\w+), (.*)$", result.stdout, re.M)
        summary = re.findall(r"^  scheduler (\w+): tasks run \d+, tiles (\d+),", result.stdout, re.M)
        # On a CPU every mode blocks its stencils for the cache (tiles > 0).
        tiled = "scheduler.tiling=false" not in sets
        check(f"--scheduler: {name} ({ranks} rank(s)) runs {mode}: the log and the summary say so, "
              f"{'tiled' if tiled else 'untiled, 0 tiles'}, the same digest",
              result.returncode == 0 and len(logged) == 1 and logged[0][0] == mode
              and logged[0][1].startswith("stencils tiled" if tiled else "untiled kernels")
              and summary and summary[0][0] == mode and (int(summary[0][1]) > 0) == tiled
              and same_digest(THREE_STEPS, result),
              f"log {logged}, summary {summary}\n{result.describe()}")

    # --- --scheduler host,sync,async: the modes take turns, one timestep each ----------------------
    for ranks, modes in ((2, ["host", "sync", "async"]), (1, ["async", "host"])):
        stats = work / f"rotation{ranks}.jsonl"
        result = run(ranks=ranks, sets=SMALL, options=["--max-timesteps", "5", "--stats", str(stats),
                                                        "--scheduler", ",".join(modes)], quiet=False)
        lines = read_stats(stats)
        summary = re.findall(r"^  scheduler ([\w,]+): tasks run", result.stdout, re.M)
        check(f"--scheduler {','.join(modes)} on {ranks} rank(s): the timesteps run in "
              f"{', '.join(modes)} in turn (--stats), the log and the summary say so, the same digest",
              result.returncode == 0 and len(lines) > len(modes)
              and [line.get("scheduler") for line in lines] == [modes[n % len(modes)] for n in range(len(lines))]
              and f"timesteps rotate over the schedulers {','.join(modes)}" in result.stdout
              and summary == [",".join(modes)] and same_digest("rotation", result),
              f"stats {[line.get('scheduler') for line in lines]}, summary {summary}\n{result.describe()}")
        if ranks == 2:
            plain = run(ranks=ranks, sets=SMALL, options=["--max-timesteps", "5", "--scheduler", "host"])
            check("--scheduler host gives the rotation's digest",
                  plain.returncode == 0 and same_digest("rotation", plain), plain.describe())
    for bad, why in (("host,fast", "'fast' is not a scheduler mode"), ("host,", "a mode is missing")):
        refused = run(ranks=1, options=["--scheduler", bad])
        check(f"--scheduler {bad}: exit 1 naming the problem", refused.returncode == 1 and why in refused.stderr
              and not refused.digests, refused.describe())

    # --- Burgers has no periodic axes -------------------------------------------------------------
    periodic = variant("periodic.yaml", "    extra_cells: [1, 1, 1]\n",
                       "    extra_cells: [0, 1, 1]\n    periodic: [true, false, false]\n")
    line = next((n for n, text in enumerate(periodic.read_text().splitlines(), 1)
                 if text.strip().startswith("periodic:")), None)
    column = (periodic.read_text().splitlines()[line - 1].index("[") + 1) if line else None
    where = f"sus: error: {periodic}:{line}:{column}: grid.level.periodic: "
    refused = run(ranks=2, deck_path=periodic)
    errors = [text for text in refused.stderr.splitlines() if text.startswith("sus: error:")]
    check("a periodic axis in a Burgers deck: exit 1, one error at FILE:LINE:COLUMN of grid.level.periodic",
          refused.returncode == 1 and len(errors) == 1 and errors[0].startswith(where)
          and "no axis may be periodic" in errors[0] and not refused.digests, f"want {where!r}\n{refused.describe()}")
    validated = sus.run_serial(["--validate", str(periodic)])
    check("--validate refuses it the same way (exit 1)",
          validated.returncode == 1 and validated.stderr.startswith(where)
          and "no axis may be periodic" in validated.stderr, validated.describe())
    for axes, extra in (("[true,false,false]", "[0,1,1]"), ("[false,false,true]", "[1,1,0]")):
        override = sus.run_serial(["--validate", "--set", f"grid.level.periodic={axes}",
                                   "--set", f"grid.level.extra_cells={extra}", str(deck)])
        check(f"--set grid.level.periodic={axes}: exit 1, the override named instead of a line",
              override.returncode == 1 and f"sus: error: {deck}: grid.level.periodic: " in override.stderr
              and "no axis may be periodic" in override.stderr
              and override.stderr.rstrip().endswith(f"(from override grid.level.periodic={axes})"),
              override.describe())

    log_levels(check, run, work)
    restart_beside(check, run, deck, work)
    check.finish()


def tagged(text, tag):
    return [line for line in text.splitlines() if line.startswith(f"[{tag}]")]


def log_levels(check, run, work):
    """--log-level and --quiet on a run that logs on every level: delt_min above the stable step
    (a warning per raised step) and a graph rebuilt every step (a debug line per step)."""
    noisy = [*SMALL, "time.delt_min=0.02", "time.max_time=0.05", "scheduler.rebuild_every_timestep=true"]
    shown = {  # level -> (warnings, info, debug) shown
        "error": (False, False, False), "warning": (True, False, False),
        "info": (True, True, False), "debug": (True, True, True)}
    digests = set()
    for level, (warn, info, debug) in shown.items():
        for ranks in ((1, 2) if level == "warning" else (1,)):
            stats = work / f"log_{level}_{ranks}.jsonl"
            result = run(ranks=ranks, sets=noisy, quiet=False, options=["--log-level", level, "--stats", str(stats)])
            lines = {tag: tagged(result.stdout, tag) for tag in ("WARN", "INFO", "DEBUG")}
            raised = [line for line in lines["WARN"] if "to delt_min 0.02 (above the stable timestep)" in line]
            delts = [line.get("delt") for line in read_stats(stats)]
            digests.add(tuple(sorted(result.digests.items())))
            check(f"--log-level {level} ({ranks} rank(s)): warnings {'shown' if warn else 'hidden'}, [INFO] "
                  f"{'shown' if info else 'hidden'}, [DEBUG] {'shown' if debug else 'hidden'}; the report always",
                  result.returncode == 0 and result.timesteps == 3 and bool(result.digests)
                  and "L2 error" in result.analysis
                  and len(raised) == (2 if warn else 0) and len(lines["WARN"]) == len(raised)
                  and bool(lines["INFO"]) == info and len(lines["DEBUG"]) == (3 if debug else 0)
                  and all("recompiled the timestep graph in" in line for line in lines["DEBUG"])
                  and not tagged(result.stderr, "WARN") and not tagged(result.stderr, "INFO"),
                  f"{lines}\n{result.describe()}")
            if level == "info" and ranks == 1:
                # delt_min: steps 1 and 2 are raised to it (a warning each), step 3 ends on max_time.
                check("time.delt_min 0.02 above the stable step: steps of 0.02, 0.02 and the 0.01 left to "
                      "max_time 0.05; a warning for steps 1 and 2 naming the stable step; exit 0",
                      result.returncode == 0 and len(delts) == 3 and all(abs(d - e) < 1e-12 for d, e in
                                                                         zip(delts, (0.02, 0.02, 0.01)))
                      and [re.match(r"\[WARN\] timestep (\d+): raising delt from 0\.01\d+ to delt_min 0\.02 ",
                                    line) is not None for line in raised] == [True, True]
                      and [line.split()[2] for line in raised] == ["1:", "2:"], f"delts {delts}\n{raised}")
    check("every log level gives the same digest", len(digests) == 1, str(digests))
    quiet = run(sets=noisy, options=["--log-level", "debug"])  # run() adds --quiet
    check("--quiet keeps the warnings and the report, hides [INFO] (and [DEBUG], even with --log-level debug)",
          quiet.returncode == 0 and len(tagged(quiet.stdout, "WARN")) == 2 and not tagged(quiet.stdout, "INFO")
          and not tagged(quiet.stdout, "DEBUG") and quiet.digests, quiet.describe())
    below = run(sets=[*SMALL, "time.delt_min=0.001", "time.max_time=0.05"], quiet=False)
    check("time.delt_min below the stable step: no warning", below.returncode == 0 and below.digests
          and not tagged(below.stdout, "WARN") and tagged(below.stdout, "INFO"), below.describe())
    refused = run(ranks=2, sets=["time.max_time=-1"], options=["--log-level", "error"])
    errors = [line for line in refused.stderr.splitlines() if line.startswith("sus: error:")]
    check("--log-level error still prints a deck error (once, 2 ranks, exit 1)",
          refused.returncode == 1 and len(errors) == 1 and "time.max_time" in errors[0], refused.describe())


def restart_beside(check, run, deck, work):
    """A restart of a run whose deck gave no output.dir (the stored input.yaml has none) writes
    the next version beside that run and moves its link, wherever sus runs."""
    first, elsewhere = work / "beside" / "first", work / "beside" / "elsewhere"
    first.mkdir(parents=True)
    elsewhere.mkdir()
    base = ["grid.level.resolution=[8,8,8]", "checkpoint.timestep_interval=2", "time.max_timesteps=4",
            "time.max_time=1.0"]
    original = run(sets=base, cwd=first)
    named = deck.stem + ".tsa"
    check(f"a run without output.dir writes {named}.000 in its working directory (the link {named})",
          original.returncode == 0 and (first / f"{named}.000" / "index.yaml").is_file()
          and os.readlink(first / named) == f"{named}.000"
          and "dir:" not in (first / named / "input.yaml").read_text(), original.describe())
    for given, version in ((f"../first/{named}", "001"), (str(first / f"{named}.000"), "002")):
        again = run(deck_path=None, options=["--restart", given, "--checkpoint", "2"], cwd=elsewhere)
        check(f"--restart {given} from another directory: exit 0, writes first/{named}.{version} and moves "
              f"the link there, nothing in the working directory",
              again.returncode == 0 and (first / f"{named}.{version}" / "index.yaml").is_file()
              and os.readlink(first / named) == f"{named}.{version}" and not any(elsewhere.iterdir()),
              f"{sorted(p.name for p in first.iterdir())}, {sorted(p.name for p in elsewhere.iterdir())}\n"
              f"{again.describe()}")
    copy = elsewhere / "copy"
    shutil.copytree(first / f"{named}.000", copy)
    refused = run(deck_path=None, options=["--restart", "copy"], cwd=elsewhere)
    check("--restart of a copy not named NAME.NNN: exit 2, the copy cannot be the link (give output.dir)",
          refused.returncode == 2 and "cannot use 'copy' as the output link" in refused.stderr, refused.describe())
    named_dir = run(deck_path=None, options=["--restart", "copy"], sets=["output.dir=resumed.tsa"], cwd=elsewhere)
    check("... with --set output.dir=resumed.tsa: exit 0, resumed.tsa.000 in the working directory",
          named_dir.returncode == 0 and (elsewhere / "resumed.tsa.000" / "index.yaml").is_file(),
          named_dir.describe())
    shutil.rmtree(work / "beside")


if __name__ == "__main__":
    main()
