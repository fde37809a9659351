"""Dynamic load balancing (load_balancer.dynamic; docs/load-balancing.md).

- Task Bench with load imbalance (inputs/TaskBench/imbalanced.yaml, whose
  static placement leaves one of 2 ranks 32 % above the mean): the balancer
  measures the patches' costs, rebalances and migrates patches, and the
  result is bitwise the static placement's, on 2 ranks in every mode and on
  4 (oversubscribed), with the curve cut by cost and with knapsack; the run record counts the rebalances and the moves;
- Burgers with levels that follow its fronts (regridding) and dynamic
  balancing on 3 ranks: the digests of every level equal those of the same
  run without dynamic balancing;
- a restart of a rebalanced run on another rank count ends on the same
  digests; on as many ranks it takes up the placement its checkpoint ran
  with (the file's balance/patch_ranks).

usage: test_dlb.py --sus S --mpirun M [--mpirun-flag=F]... TASKBENCH_DECK BURGERS_DECK WORKDIR
"""
import json
import pathlib
import re
import subprocess
import sys

from sus_runner import Checks, Sus, fresh_directory, parse_common_args

# Less work per task than the deck's, for a test's time; the same imbalance.
QUICK = ["taskbench.iterations=4000", "time.max_timesteps=30"]
STATIC = "load_balancer.dynamic.interval=1000000"  # no check within the run: static
REGRID = ["grid.level.resolution=[16,16,16]", "grid.level.patches=[2,2,2]", "amr.max_levels=3",
          "amr.max_patch_size=4", "burgers.refine_threshold=0.04", "amr.regrid_interval=3",
          "time.max_timesteps=12"]


def rebalances(run):
    found = re.search(r"^  rebalances: (\d+) \((\d+) patches moved\)$", run.stdout, re.M)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    taskbench, burgers, work = rest[0], rest[1], pathlib.Path(rest[2])
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()

    def run(name, deck, ranks, sets, options=()):
        return sus.checked(check, name, deck, ranks, sets, options)

    with fresh_directory(work):
        static = run("Task Bench with imbalance, static placement, 2 ranks", taskbench, 2, [*QUICK, STATIC])
        record = work / "dynamic.json"
        dynamic = [run("the same balanced dynamically, 2 ranks async", taskbench, 2, QUICK,
                       ["--scheduler", "async", "--record", str(record)]),
                   run("... 2 ranks host", taskbench, 2, QUICK, ["--scheduler", "host"]),
                   run("... 2 ranks sync", taskbench, 2, QUICK, ["--scheduler", "sync"]),
                   run("... 4 ranks async", taskbench, 4, QUICK, ["--scheduler", "async"]),
                   run("... placed by knapsack, 2 ranks async", taskbench, 2,
                       [*QUICK, "load_balancer.dynamic.strategy=knapsack"])]
        check("the static run rebalances never", rebalances(static) == (0, 0), static.stdout)
        counts = [rebalances(r) for r in dynamic]
        check("each dynamic run rebalanced and moved patches",
              all(n >= 1 and moved >= 1 for n, moved in counts), str(counts))
        check("every dynamic run is bitwise the static run",
              all(r.digests == static.digests for r in dynamic),
              "\n".join(str(r.digests) for r in [static, *dynamic]))
        balance = json.loads(record.read_text())["load_balance"]
        check("the run record counts the rebalances and the patches moved",
              (balance["rebalances"], balance["patches_moved"]) == counts[0], str(balance))
        print(f"measured imbalance: static {static.stdout.split('load imbalance ')[1].split(' %')[0]} %, "
              f"dynamic {dynamic[0].stdout.split('load imbalance ')[1].split(' %')[0]} %")

        dynamic_sets = ["load_balancer.dynamic.interval=2", "load_balancer.dynamic.imbalance_threshold=0.02"]
        plain = run("Burgers regridding, 3 ranks", burgers, 3, REGRID)
        both = run("Burgers regridding and balancing dynamically, 3 ranks", burgers, 3, [*REGRID, *dynamic_sets])
        check("regridding with dynamic balancing: every level's digest as without it",
              both.digests == plain.digests, f"{both.digests} against {plain.digests} ({rebalances(both)})")
        print(f"Burgers: {rebalances(both)} rebalance(s)")

        archived = [*QUICK, "checkpoint.timestep_interval=10", "checkpoint.cycle=5", f"output.dir={work / 'run'}"]
        straight = run("a balanced run with checkpoints, 2 ranks", taskbench, 2, archived)
        run_dir = (work / "run").resolve()
        again = run("its restart from timestep 20 on 3 ranks", "", 3, [],
                    ["--restart", str(run_dir), "--checkpoint", "20"])
        check("... the same digests", again.digests == straight.digests == static.digests,
              f"{again.digests} {straight.digests}")
        # On as many ranks the restart takes up the checkpoint's placement
        # (balance/patch_ranks), which the log says.
        command = [arg for arg in sus.command("", 2, [], ["--restart", str(run_dir), "--checkpoint", "20"])
                   if arg != "--quiet"]
        same = subprocess.run(command, capture_output=True, text=True, timeout=300)
        check("a restart on 2 ranks takes up the checkpoint's placement, the same digests",
              same.returncode == 0 and "restart: the checkpoint's placement" in same.stdout + same.stderr
              and f"digest taskbench.value {static.digests['taskbench.value']}" in same.stdout,
              same.stdout[-2000:] + same.stderr[-2000:])
    check.finish()


if __name__ == "__main__":
    main()
