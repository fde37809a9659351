"""sus --record FILE and RUN_DIR/result.json (docs/user-guide.md, "The run
record"): every documented field is there and agrees with what sus prints;
both copies are the same document; a restart's record says where it started
and ends on the straight run's digests; an unwritable --record is an input
error before the run (printed once on 2 ranks); a failed run leaves no record.

usage: test_run_record.py --sus S --mpirun M [--mpirun-flag=F]... DECK USER_GUIDE WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import json
import pathlib
import re
import sys

from sus_runner import Checks, Sus, parse_common_args, fresh_directory

SMALL = ["grid.level.resolution=[16,16,16]", "time.max_time=0.1"]


def documented_fields(user_guide):
    """The field names of the run-record table in the user guide."""
    text = user_guide.read_text()
    section = text.split("## The run record", 1)[1].split("\n## ", 1)[0]
    names = []
    for cell in re.findall(r"^\| ([^|]+) \|", section, re.M):
        names += re.findall(r"`([a-z_]+)`", cell)
    return set(names)


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, user_guide, work = rest[0], pathlib.Path(rest[1]), pathlib.Path(rest[2])
    with fresh_directory(work):
        run_checks(Sus(sus_path, mpirun, flags), deck, user_guide, work)


def run_checks(sus, deck, user_guide, work):
    check = Checks()
    record_path = work / "run.json"
    sets = [*SMALL, "checkpoint.timestep_interval=3", "checkpoint.cycle=10",
            f"output.dir={work / 'burgers.tsa'}"]
    run = sus.run(deck, ranks=2, sets=sets, threads=2,
                  options=["--record", str(record_path), "--scheduler", "sync"])
    check("a 2-rank run with --record succeeds", run.returncode == 0 and record_path.is_file(), run.describe())
    if run.returncode != 0 or not record_path.is_file():
        check.finish()
    record = json.loads(record_path.read_text())

    fields = documented_fields(user_guide)
    top = set(record) | {"time_loop", "run"} | {k for k in record["tessera"]} | {k for k in record["deck"]}
    check("the user guide documents fields", len(fields) >= 20, str(sorted(fields)))
    check("every documented field is in the record", fields <= top, f"missing {sorted(fields - top)}")
    check("every field of the record is documented", set(record) <= fields,
          f"undocumented {sorted(set(record) - fields)}")

    check("format and version", record["format"] == "tessera-run-record" and record["format_version"] == 1)
    check("ranks, threads per rank and scheduler as run",
          (record["ranks"], record["threads_per_rank"], record["scheduler"]) == (2, 2, "sync"),
          str((record["ranks"], record["threads_per_rank"], record["scheduler"])))
    check("the build: version, build type, compiler, execution space",
          all(record["tessera"].get(k) for k in ("version", "build_type", "compiler", "execution_space")),
          str(record["tessera"]))
    check("the digests are the printed ones", record["digests"] == run.digests and run.digests,
          f"{record['digests']} vs {run.digests}")
    check("the analysis results are the printed ones, to the bit",
          record["analysis"] == run.analysis and len(run.analysis) == 2, f"{record['analysis']} vs {run.analysis}")
    stable = record["reductions"].get("burgers.stableDelT", {})
    check("the last step's reductions: burgers.stableDelT, a positive double",
          stable.get("type") == "double" and isinstance(stable.get("value"), float) and stable["value"] > 0,
          str(record["reductions"]))
    check("timesteps: run from 0 to the printed count",
          record["first_timestep"] == 0 and record["timesteps"] == run.timesteps == record["final_timestep"],
          f"{record['first_timestep']} {record['timesteps']} {record['final_timestep']} vs {run.timesteps}")
    check("the simulation time is max_time", record["simulation_time"] == 0.1, str(record["simulation_time"]))
    check("the deck as run carries the overrides",
          record["deck"]["overrides"] == sets and "resolution: [16, 16, 16]" in record["deck"]["as_run"]
          and record["deck"]["file"] == deck and "--record" in record["command_line"],
          json.dumps(record["deck"], indent=1))
    memory = record["peak_memory_bytes"]
    check("peak memory of each of the 2 ranks, in bytes",
          len(memory) == 2 and all(isinstance(m, int) and 2**20 < m < 2**40 for m in memory), str(memory))
    balance = record["load_balance"]
    seconds = balance["task_seconds"]
    check("time in tasks of each of the 2 ranks, positive, within the time loop",
          len(seconds) == 2 and all(isinstance(t, float) and 0 < t <= record["wall_seconds"]["time_loop"]
                                    for t in seconds), json.dumps(record["wall_seconds"]) + str(balance))
    if len(seconds) == 2 and all(t > 0 for t in seconds):
        imbalance = max(seconds) / (sum(seconds) / len(seconds)) - 1.0
        printed = re.search(r"load imbalance ([0-9.]+) %", run.stdout)
        check("the load imbalance: the busiest rank over the mean, minus 1, as printed",
              balance["imbalance"] == imbalance and printed is not None
              and abs(float(printed.group(1)) - 100 * imbalance) <= 0.05 + 1e-9,
              f"{balance} vs {imbalance}; printed {printed.group(0) if printed else None}")
    times = record["wall_seconds"]
    check("wall seconds: the time loop within the whole run",
          0 < times["time_loop"] <= times["run"], str(times))
    run_dir = pathlib.Path(record["output_directory"])
    copy = run_dir / "result.json"
    check("the run directory holds the same record as result.json",
          copy.is_file() and json.loads(copy.read_text()) == record, str(copy))

    # A restart from timestep 3: its record says so, and ends on the same bits.
    restart_path = work / "restart.json"
    again = sus.run(None, ranks=1, options=["--restart", str(run_dir), "--checkpoint", "3",
                                            "--record", str(restart_path)])
    restarted = json.loads(restart_path.read_text()) if restart_path.is_file() else {}
    check("a restart's record: restarted_from, first timestep 3, the straight run's end and digests",
          again.returncode == 0 and restarted.get("restarted_from") == str(run_dir)
          and restarted.get("first_timestep") == 3
          and restarted.get("timesteps") == record["final_timestep"] - 3
          and restarted.get("final_timestep") == record["final_timestep"]
          and restarted.get("digests") == record["digests"]
          and restarted.get("reductions") == record["reductions"]
          and restarted.get("ranks") == 1, again.describe() + json.dumps(restarted, indent=1))

    # An unwritable --record is an input error before anything runs.
    for target, reason in ((work / "missing" / "run.json", "no folder"), (work, "it is a directory")):
        bad = sus.run(deck, ranks=2, sets=[*SMALL, f"output.dir={work / 'never.tsa'}"],
                      options=["--record", str(target)])
        messages = [l for l in bad.stderr.splitlines() if l.startswith("sus:")]
        check(f"--record {target.name}: exit 1, '{reason}', printed once, nothing run",
              bad.returncode == 1 and len(messages) == 1 and reason in messages[0]
              and "the run record" in messages[0] and not list(work.glob("never.tsa*")), bad.describe())

    # A run that fails writes no record.
    failed_path = work / "failed.json"
    failed = sus.run(deck, ranks=2, sets=[*SMALL, "output.timestep_interval=1", f"output.dir={work / 'failed.tsa'}"],
                     options=["--record", str(failed_path)], env={"TESSERA_TEST_IO_FAULT": "write:t00002.h5:1"})
    check("a run that fails (exit 2) leaves no record", failed.returncode == 2 and not failed_path.exists()
          and not list(work.glob("failed.tsa.000/result.json")), failed.describe())
    check.finish()


if __name__ == "__main__":
    main()
