"""The TaskBench component (Task Bench's stencil_1d): the values match the
pattern computed here in Python bit for bit, on any rank count and in every
scheduler mode, busy work leaves them unchanged, and a run has exactly one
task per point per step (the pattern has no timestep task and no reduction).

usage: test_taskbench.py --sus S --mpirun M [--mpirun-flag F]... DECK
"""
import json
import pathlib
import sys
import tempfile

from sus_runner import Checks, Sus, parse_common_args

WIDTH = 16
STEPS = 7


def expected_sum():
    """stencil_1d on WIDTH points for STEPS steps, then the sum in point order."""
    values = [float(i + 1) for i in range(WIDTH)]
    for _ in range(STEPS):
        new = []
        for i, c in enumerate(values):
            if i == 0:
                new.append((c + values[1]) / 2.0)
            elif i == WIDTH - 1:
                new.append((values[i - 1] + c) / 2.0)
            else:
                new.append((values[i - 1] + c + values[i + 1]) / 3.0)
        values = new
    total = 0.0
    for v in values:
        total += v
    return total


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck = rest[0]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    grid = [f"grid.level.resolution=[{WIDTH},1,1]", f"grid.level.patches=[{WIDTH},1,1]",
            f"grid.level.upper=[{WIDTH}.0,1.0,1.0]"]
    want = expected_sum()
    digests = set()
    with tempfile.TemporaryDirectory(prefix="tessera-taskbench-") as tmp:
        for ranks in (1, 2, 3):
            for mode in ("host", "sync", "async"):
                for iterations in (0, 50):
                    stats = pathlib.Path(tmp) / f"stats-{ranks}-{mode}-{iterations}.jsonl"
                    run = sus.run(deck, ranks=ranks, timeout=120,
                                  sets=grid + [f"taskbench.iterations={iterations}"],
                                  options=["--scheduler", mode, "--max-timesteps", str(STEPS),
                                           "--stats", str(stats)])
                    name = f"{ranks} rank(s), {mode}, {iterations} iterations"
                    check(f"{name}: exits 0", run.returncode == 0, run.describe())
                    if run.returncode != 0:
                        continue
                    summed = float(next(line.split(": ")[1] for line in run.stdout.splitlines()
                                        if line.startswith("value sum: ")))
                    check(f"{name}: the values are the pattern's, to the bit ({summed!r} == {want!r})",
                          summed.hex() == want.hex() or abs(summed - want) == 0.0, run.stdout)
                    digests.add(run.digests.get("taskbench.value"))
                    lines = [json.loads(line) for line in stats.read_text().splitlines()]
                    tasks = sum(line["tasks"] for line in lines)
                    if ranks == 1:
                        check(f"{name}: one task per point per step, and no other; steps of 1 "
                              "(no stable timestep)",
                              tasks == STEPS * WIDTH and [line["delt"] for line in lines] == [1.0] * STEPS,
                              f"{tasks} tasks, delt {[line['delt'] for line in lines]}")
    check("the same digest on every rank count, mode and amount of busy work",
          len(digests) == 1 and None not in digests, digests)
    check.finish()


if __name__ == "__main__":
    main()
