"""heat-reference, the hand-written OpenMP heat program the stencil benchmark
measures Tessera against (StandAlone/reference/heat_reference.cc), gives
sus's digest for the same deck: radius 1 to 4, one array or blocks
exchanging ghosts, 1 or 2 threads, another alpha and timestep multiplier, a
last step shortened to land on the end time, warm-up steps counted. Each
case has its own digest, so equal digests are not an accident.

usage: test_heat_reference.py --sus S --mpirun M [--mpirun-flag=F]... HEAT_DECK HEAT_REFERENCE
"""
import os
import re
import subprocess
import sys

from sus_runner import Checks, Sus, parse_common_args

CASES = [
    # (radius, cells per axis, the reference's blocks per axis, threads, sus ranks, alpha, multiplier,
    #  warm-up + timed steps, end time)
    (1, 16, 1, 1, 1, 1.0, 0.5, (0, 6), 1e9),
    (2, 16, 2, 1, 2, 0.7, 0.4, (2, 5), 1e9),
    (3, 18, 2, 2, 1, 1.0, 0.5, (1, 6), 1e9),
    (4, 16, 2, 1, 3, 1.3, 0.45, (0, 9), 0.0012),  # the end time cuts the ninth step short
]
# |w_0| + 2 sum_j |w_j| of the star (docs/stencil.md): the stable step is 2 / (alpha S sum_a 1/dx_a^2).
LARGEST_SYMBOL = {1: 4.0, 2: 16.0 / 3.0, 3: 49.0 / 18.0 + 2 * (3.0 / 2 + 3.0 / 20 + 1.0 / 90),
                  4: 205.0 / 72.0 + 2 * (8.0 / 5 + 1.0 / 5 + 8.0 / 315 + 1.0 / 560)}


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, reference = rest[0], rest[1]
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    digests = []
    for r, n, blocks, threads, ranks, alpha, multiplier, (warmup, steps), end in CASES:
        label = f"r={r}, {n}^3, alpha {alpha}, multiplier {multiplier}, {warmup} + {steps} steps, end {end:g}"
        run = sus.run(deck, ranks=ranks, threads=threads, timeout=300,
                      options=["--nthreads", str(threads), "--max-timesteps", str(warmup + steps)],
                      sets=[f"stencil.radius={r}", f"grid.level.extra_cells=[{r},{r},{r}]",
                            f"grid.level.resolution=[{n},{n},{n}]", f"stencil.alpha={alpha!r}",
                            f"time.timestep_multiplier={multiplier!r}", f"time.max_time={end!r}"])
        done = subprocess.run([reference, "--resolution", str(n), "--patches", str(blocks), "--radius", str(r),
                               "--steps", str(steps), "--warmup", str(warmup), "--alpha", repr(alpha),
                               "--multiplier", repr(multiplier), "--max-time", repr(end)],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="false"))
        found = re.search(r"^digest u ([0-9a-f]{16})$", done.stdout, re.M)
        ran = re.search(r"^reference: (\d+) timesteps", done.stdout, re.M)
        ours, theirs = run.digests.get("u"), found.group(1) if found else None
        check(f"{label}: sus on {ranks} rank(s) and heat-reference in {blocks}^3 block(s) on {threads} thread(s) "
              f"take {run.timesteps} steps and give one digest ({ours}, {theirs})",
              run.returncode == 0 and done.returncode == 0 and ours is not None and ours == theirs
              and ran is not None and int(ran.group(1)) == run.timesteps,
              f"{run.describe()}\n--- heat-reference (exit {done.returncode}) ---\n{done.stdout}{done.stderr}")
        if end < 1e9:
            step = multiplier * 2.0 / (alpha * LARGEST_SYMBOL[r] * 3 * n * n)
            check(f"{label}: {warmup + steps} steps of {step:.6g} would pass the end time: the last is shortened "
                  f"to end on it", (warmup + steps - 1) * step < end < (warmup + steps) * step
                  and re.search(rf"^summary: {warmup + steps} timesteps to time {end:g} on", run.stdout, re.M),
                  run.describe())
        digests.append(ours)
    check("every case has its own digest", len(set(digests)) == len(digests) and None not in digests, str(digests))
    check.finish()


if __name__ == "__main__":
    main()
