"""The stencil component (docs/stencil.md): the heat kernel converges at
order 2r in space, the PRK Stencil validates in 2D and 3D for r = 1 to 4,
Jacobi sweeps converge to the harmonic solution, and bad decks are errors
naming the file, line and key.

Order of accuracy. For the mode sin(k pi x) sin(k pi y) sin(k pi z), the
star of order 2r misses the decay rate by dl = 3 alpha C_r kappa^(2r+2)
dx^(2r) (C_1 = 1/12, C_2 = 1/90, kappa = k pi), so the space error at time
t is about t dl u. Explicit Euler adds about t (dt/2) l^2 u, l = 3 alpha
kappa^2. Their ratio is 1.5 alpha dt / (C_r kappa^(2r-2) dx^(2r)). One dt
for all grids, chosen so that the ratio is at most 1/20 on the finest
grid, keeps the time error below 5 % of the space error everywhere (it is
smaller still on the coarser grids): the observed order is then the space
order, 2r, up to that 5 % and to the higher-order terms of the coarse grids.

usage: test_stencil.py --sus S --mpirun M [--mpirun-flag=F]... DECK_DIR
"""
import math
import pathlib
import re
import sys

from sus_runner import Checks, Sus, parse_common_args

ALPHA = 1.0
END_TIME = {1: 2e-3, 2: 2e-4}
GRIDS = {1: [8, 16, 32], 2: [8, 12, 16, 24]}
C_R = {1: 1.0 / 12.0, 2: 1.0 / 90.0}


def time_step(r, finest):
    """dt with (time error) / (space error) = 1/20 on the finest grid."""
    kappa, dx = math.pi, 1.0 / finest
    return (1.0 / 20.0) * C_R[r] * kappa ** (2 * r - 2) * dx ** (2 * r) / (1.5 * ALPHA)


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    decks = pathlib.Path(rest[0])
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    convergence(sus, decks / "heat.yaml", check)
    prk_validation(sus, decks, check)
    jacobi(sus, decks / "jacobi.yaml", check)
    bad_decks(sus, decks / "heat.yaml", check)
    check.finish()


def convergence(sus, deck, check):
    print("heat kernel, observed order in space (L2 error at the end time):")
    for r, grids in GRIDS.items():
        dt = time_step(r, grids[-1])
        errors = []
        for n in grids:
            run = sus.run(str(deck), ranks=2, sets=[
                f"stencil.radius={r}", f"grid.level.resolution=[{n},{n},{n}]",
                "grid.level.patches=[2,1,1]", f"grid.level.extra_cells=[{r},{r},{r}]",
                f"time.max_time={END_TIME[r]}", f"time.delt_max={dt!r}"])
            ok = run.returncode == 0 and "L2 error" in run.analysis
            check(f"heat r={r} on {n}^3 runs", ok, run.describe())
            errors.append(run.analysis.get("L2 error", float("nan")))
        orders = [math.log(errors[i] / errors[i + 1]) / math.log(grids[i + 1] / grids[i])
                  for i in range(len(grids) - 1)]
        print(f"  r = {r}, dt = {dt:.3g}, t = {END_TIME[r]:g}:")
        for i, n in enumerate(grids):
            order = f"   order {orders[i - 1]:.3f}" if i else ""
            print(f"    {n:3d}^3  L2 error {errors[i]:.6e}{order}")
        check(f"heat r={r}: every observed order within 0.25 of {2 * r}",
              all(abs(o - 2 * r) < 0.25 for o in orders), str(orders))
        check(f"heat r={r}: the finest pair within 0.1 of {2 * r}", abs(orders[-1] - 2 * r) < 0.1,
              str(orders))


def prk_validation(sus, decks, check):
    for axes, deck, sets in ((2, "prk_2d.yaml", ["grid.level.resolution=[64,48,1]", "grid.level.patches=[4,2,1]",
                                                  "grid.level.upper=[64.0,48.0,1.0]"]),
                             (3, "prk_3d.yaml", ["grid.level.resolution=[20,18,16]", "grid.level.patches=[2,2,2]",
                                                  "grid.level.upper=[20.0,18.0,16.0]"])):
        for r in range(1, 5):
            sweeps = 5
            run = sus.run(str(decks / deck), ranks=2, sets=[*sets, f"stencil.radius={r}",
                                                             f"time.max_timesteps={sweeps}"])
            mean = run.analysis.get("mean absolute output")
            rate = re.search(r"^Rate \(MFlops/s\): (\S+)  Avg time \(s\): (\S+)$", run.stdout, re.M)
            check(f"PRK {axes}D r={r}: 'Solution validates', mean |out| = {sweeps} x {axes} within 1e-8, a rate",
                  run.returncode == 0 and "Solution validates" in run.stdout and mean is not None
                  and abs(mean - sweeps * axes) < 1e-8 and run.analysis.get("reference norm") == sweeps * axes
                  and rate is not None and float(rate.group(1)) > 0, run.describe())


def jacobi(sus, deck, check):
    run = sus.run(str(deck), ranks=2)
    sweeps = run.analysis.get("sweeps", 0)
    update = run.analysis.get("last update RMS", 1)
    check("jacobi: stops below the tolerance before max_timesteps, near the harmonic solution",
          run.returncode == 0 and 0 < sweeps < 5000 and update < 1e-6
          and run.analysis.get("L2 error", 1) < 1e-2, run.describe())
    longer = sus.run(str(deck), ranks=1, sets=["stencil.tolerance=1e-9"])
    check("jacobi: a tighter tolerance takes more sweeps",
          longer.returncode == 0 and longer.analysis.get("sweeps", 0) > sweeps
          and longer.analysis.get("last update RMS", 1) < 1e-9, longer.describe())
    # Converged, what is left is the discretisation error: order 2 for the 7-point star.
    errors = []
    for n in (16, 32):
        done = sus.run(str(deck), ranks=2, sets=["stencil.tolerance=1e-11", "time.max_timesteps=100000",
                                                 f"grid.level.resolution=[{n},{n},{n}]"])
        errors.append(done.analysis.get("L2 error", float("nan")))
        check(f"jacobi on {n}^3 converges to 1e-11", done.returncode == 0
              and done.analysis.get("last update RMS", 1) < 1e-11, done.describe())
    order = math.log(errors[0] / errors[1]) / math.log(2)
    print(f"  jacobi r = 1, converged: L2 error {errors[0]:.6e} on 16^3, {errors[1]:.6e} on 32^3, order {order:.3f}")
    check("jacobi: the converged solution's error falls at order 2 (within 0.2)", abs(order - 2) < 0.2,
          str(errors))
    capped = sus.run(str(deck), ranks=2, sets=["time.max_timesteps=7"])
    check("jacobi: max_timesteps ends it first", capped.returncode == 0
          and capped.analysis.get("sweeps") == 7, capped.describe())


def bad_decks(sus, deck, check):
    cases = [
        (["stencil.radius=5"], r"stencil\.radius"),
        (["stencil.kernel=heat3"], r"heat, jacobi, prk|heat, jacobi or prk"),
        (["stencil.radius=2"], r"extra_cells.*stencil\.radius = 2"),
        (["grid.level.patches=[16,1,1]", "stencil.radius=3", "grid.level.extra_cells=[3,3,3]"],
         r"patches 2 cells wide along x are narrower than stencil\.radius 3"),
    ]
    for sets, message in cases:
        run = sus.run(str(deck), ranks=2, sets=sets)
        errors = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
        check(f"bad deck {' '.join(sets)}: exit 1, one message naming it",
              run.returncode == 1 and len(errors) == 1 and re.search(message, errors[0]) is not None,
              run.describe())


if __name__ == "__main__":
    main()
