"""The stencil component (docs/stencil.md): the heat kernel converges at
order 2r in space for r = 1 to 4 and takes the documented stable step,
`stencil.alpha` and `stencil.wavenumber` mean what they say, the PRK Stencil
validates in 2D and 3D for r = 1 to 4, Jacobi sweeps converge to the
harmonic solution, and bad decks are errors naming the file, line and key.

Order of accuracy, Dirichlet boundaries (r = 1, 2). For the mode
sin(k pi x) sin(k pi y) sin(k pi z), the star of order 2r misses the decay
rate by dl = 3 alpha C_r kappa^(2r+2) dx^(2r) (C_1 = 1/12, C_2 = 1/90,
kappa = k pi), so the space error at time t is about t dl u. Explicit Euler
adds about t (dt/2) l^2 u, l = 3 alpha kappa^2. Their ratio is 1.5 alpha dt
/ (C_r kappa^(2r-2) dx^(2r)). One dt for all grids, chosen so that the
ratio is at most 1/50 on the finest grid, keeps the time error below 2 % of
the space error everywhere (it is smaller still on the coarser grids): the
observed order is then the space order, 2r, up to that 2 % (at most 0.07
on the pair 12, 16) and to the higher-order terms of the coarse grids. The
ladder 8, 12, 16 shows it as well as a finer one (the test once went up
to 24^3: 72,600 steps); for r = 3 and 4 the same dt would be 1e-10 or less.

Order of accuracy, periodic boundaries (r = 1 to 4). On the periodic box
the mode is an eigenvector of the star: each step multiplies it by
1 + dt lambda_h, with lambda_h = alpha sum_a (w_0 + 2 sum_j w_j cos(j kappa
dx_a)) / dx_a^2 (the weights of docs/stencil.md), while the exact solution
decays as exp(-alpha |kappa|^2 t). So the L2 error after N steps is exactly
|(1 + dt lambda_h)^N - exp(-alpha |kappa|^2 t)| times the RMS of the mode,
whatever dt: the test requires sus's L2 error to equal it to 1e-9 (rounding
leaves 1e-12), which no other set of weights, alpha or wavenumber gives.
From the measured error it then recovers lambda_h, time error removed, and
requires |lambda_h - lambda| to fall at order 2r on 8, 12, 16 cells.

usage: test_stencil.py --sus S --mpirun M [--mpirun-flag=F]... DECK_DIR [PART]...

PART: heat-dirichlet, heat-periodic, stable-timestep, prk, jacobi, bad-decks
(the default: all of them), or jacobi-high-order (Jacobi at r = 3 and 4
converging at order 2r; run on its own).
"""
import json
import math
import pathlib
import re
import sys
import tempfile

from sus_runner import Checks, Sus, parse_common_args

ALPHA = 1.0
END_TIME = {1: 2e-3, 2: 2e-4}
GRIDS = {1: [8, 16, 32], 2: [8, 12, 16]}
C_R = {1: 1.0 / 12.0, 2: 1.0 / 90.0}
# The second-derivative weights of docs/stencil.md, at 0, +-1, +-2, ... (times 1/dx^2).
WEIGHTS = {
    1: [-2.0, 1.0],
    2: [-5.0 / 2.0, 4.0 / 3.0, -1.0 / 12.0],
    3: [-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0],
    4: [-205.0 / 72.0, 8.0 / 5.0, -1.0 / 5.0, 8.0 / 315.0, -1.0 / 560.0],
}
PERIODIC_GRIDS = [8, 12, 16]
PERIODIC_DT, PERIODIC_STEPS = 1e-4, 100
PARTS = ["heat-dirichlet", "heat-periodic", "stable-timestep", "prk", "jacobi", "bad-decks"]


def time_step(r, finest):
    """dt with (time error) / (space error) = 1/50 on the finest grid."""
    kappa, dx = math.pi, 1.0 / finest
    return (1.0 / 50.0) * C_R[r] * kappa ** (2 * r - 2) * dx ** (2 * r) / (1.5 * ALPHA)


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    decks = pathlib.Path(rest[0])
    parts = rest[1:] or PARTS
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()
    with tempfile.TemporaryDirectory(prefix="tessera-stencil-") as tmp:
        work = pathlib.Path(tmp)
        if "heat-dirichlet" in parts:
            convergence(sus, decks / "heat.yaml", check)
        if "heat-periodic" in parts:
            periodic_convergence(sus, decks / "heat_periodic.yaml", check)
            alpha_and_wavenumber(sus, decks / "heat_periodic.yaml", check)
        if "stable-timestep" in parts:
            stable_timestep(sus, decks / "heat.yaml", work, check)
        if "prk" in parts:
            prk_validation(sus, decks, check)
            prk_streamed_rows(sus, decks, check)
        if "jacobi" in parts:
            jacobi(sus, decks / "jacobi.yaml", check)
        if "bad-decks" in parts:
            bad_decks(sus, decks, work, check)
        if "jacobi-high-order" in parts:
            jacobi_order(sus, decks / "jacobi.yaml", [3, 4], check)
    check.finish()


def convergence(sus, deck, check):
    print("heat kernel, Dirichlet boundaries, observed order in space (L2 error at the end time):")
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


def symbol(r, theta):
    """The star's eigenvalue along one axis for sin(kappa x), times dx^2 (theta = kappa dx)."""
    w = WEIGHTS[r]
    return w[0] + 2.0 * sum(w[j] * math.cos(j * theta) for j in range(1, r + 1))


def periodic_prediction(r, cells, lengths, k, alpha, dt, steps):
    """What explicit Euler with the documented weights gives on the periodic box:
    (L2 error, exact amplitude, discrete amplitude, lambda, lambda_h, RMS of the mode)."""
    kappa = 2.0 * k * math.pi
    dx = [length / n for length, n in zip(lengths, cells)]
    lam = -alpha * 3 * kappa * kappa
    lam_h = alpha * sum(symbol(r, kappa * h) / (h * h) for h in dx)
    time = 0.0
    for _ in range(steps):  # the controller adds the steps up one by one
        time += dt
    exact, discrete = math.exp(lam * time), (1.0 + dt * lam_h) ** steps
    rms = 1.0
    for n, h in zip(cells, dx):
        rms *= math.sqrt(sum(math.sin(kappa * (i + 0.5) * h) ** 2 for i in range(n)) / n)
    return abs(discrete - exact) * rms, exact, discrete, lam, lam_h, rms


def periodic_run(sus, deck, r, cells, lengths, k, alpha):
    """sus on the periodic box (2 ranks, 2 patches along x); its L2 error and the prediction."""
    run = sus.run(str(deck), ranks=2, sets=[
        f"stencil.radius={r}", f"stencil.wavenumber={k}", f"stencil.alpha={alpha!r}",
        f"grid.level.resolution=[{cells[0]},{cells[1]},{cells[2]}]",
        f"grid.level.upper=[{lengths[0]!r},{lengths[1]!r},{lengths[2]!r}]", "grid.level.patches=[2,1,1]",
        "time.max_time=1.0", f"time.max_timesteps={PERIODIC_STEPS}", f"time.delt_max={PERIODIC_DT!r}"])
    prediction = periodic_prediction(r, cells, lengths, k, alpha, PERIODIC_DT, PERIODIC_STEPS)
    return run, run.analysis.get("L2 error", float("nan")), prediction


def periodic_convergence(sus, deck, check):
    print(f"heat kernel, periodic box, {PERIODIC_STEPS} steps of {PERIODIC_DT:g}: L2 error against the "
          "closed form, and the order of the star's eigenvalue:")
    for r in (3, 4):
        misses = []
        for n in PERIODIC_GRIDS:
            run, error, (predicted, exact, discrete, lam, lam_h, rms) = periodic_run(
                sus, deck, r, [n] * 3, [1.0] * 3, 1, 1.0)
            check(f"heat r={r} periodic {n}^3: exit 0, {PERIODIC_STEPS} steps, L2 error {error:.12e} equals "
                  f"the closed form {predicted:.12e} within 1e-9",
                  run.returncode == 0 and run.timesteps == PERIODIC_STEPS
                  and abs(error - predicted) <= 1e-9 * predicted, run.describe())
            # The discrete amplitude that error implies (on the side the prediction lies), and its eigenvalue.
            implied = exact + math.copysign(error / rms, discrete - exact)
            measured = (implied ** (1.0 / PERIODIC_STEPS) - 1.0) / PERIODIC_DT if implied > 0 else float("nan")
            misses.append(abs(measured - lam) / abs(lam))
            print(f"    r = {r}  {n:3d}^3  L2 error {error:.12e} (closed form {predicted:.12e}), "
                  f"|lambda_h - lambda| / |lambda| = {misses[-1]:.6e}")
        orders = [math.log(misses[i] / misses[i + 1]) / math.log(PERIODIC_GRIDS[i + 1] / PERIODIC_GRIDS[i])
                  for i in range(len(misses) - 1)]
        print(f"    r = {r}: observed orders {', '.join(f'{o:.3f}' for o in orders)}")
        check(f"heat r={r} periodic: the eigenvalue's error falls at order {2 * r} (every pair within 0.25, "
              f"the finest within 0.1)", all(abs(o - 2 * r) < 0.25 for o in orders)
              and abs(orders[-1] - 2 * r) < 0.1, str(orders))


def alpha_and_wavenumber(sus, deck, check):
    """stencil.alpha and stencil.wavenumber: the closed form with alpha 0.5 and k 2 on a box of
    0.5 x 1 x 1 (one wave along x, two along y and z) and unequal cells, and what k = 1 or
    alpha = 1 would have given instead."""
    cells, lengths = [8, 12, 16], [0.5, 1.0, 1.0]
    run, error, (predicted, *_) = periodic_run(sus, deck, 2, cells, lengths, 2, 0.5)
    others = {"alpha 1": periodic_prediction(2, cells, lengths, 2, 1.0, PERIODIC_DT, PERIODIC_STEPS)[0],
              "wavenumber 1": periodic_prediction(2, cells, lengths, 1, 0.5, PERIODIC_DT, PERIODIC_STEPS)[0]}
    check(f"stencil.alpha 0.5, stencil.wavenumber 2 (r=2, [8,12,16] cells on 0.5 x 1 x 1): L2 error "
          f"{error:.12e} equals the closed form {predicted:.12e} within 1e-9",
          run.returncode == 0 and abs(error - predicted) <= 1e-9 * predicted, run.describe())
    check(f"... and differs from what alpha 1 or wavenumber 1 would give ({others})",
          all(abs(other - predicted) > 1e-3 * predicted for other in others.values()), str(others))


def stable_timestep(sus, deck, work, check):
    """The first step is the forward-Euler limit 2 / (alpha S sum_a 1/dx_a^2), S = |w_0| +
    2 sum_j |w_j|, times time.timestep_multiplier (the run record's time after one step; its
    reduction stencil.stableDelT is the limit itself)."""
    cells = [8, 12, 16]
    for r, alpha in ((1, 1.0), (2, 0.25), (3, 4.0), (4, 1.0)):
        record = work / f"stable_r{r}.json"
        run = sus.run(str(deck), ranks=1, options=["--max-timesteps", "1", "--record", str(record)], sets=[
            f"stencil.radius={r}", f"stencil.alpha={alpha!r}", f"grid.level.extra_cells=[{r},{r},{r}]",
            f"grid.level.resolution=[{cells[0]},{cells[1]},{cells[2]}]", "grid.level.patches=[1,1,1]",
            "time.timestep_multiplier=0.3"])
        try:
            result = json.loads(record.read_text())
        except (OSError, ValueError):
            result = {}
        largest = abs(WEIGHTS[r][0]) + 2.0 * sum(abs(w) for w in WEIGHTS[r][1:])
        stable = 2.0 / (alpha * largest * sum(n * n for n in cells))
        reduced = result.get("reductions", {}).get("stencil.stableDelT", {}).get("value")
        first = result.get("simulation_time")
        check(f"heat r={r}, alpha {alpha}: stencil.stableDelT {reduced} = 2 / (alpha S sum 1/dx^2) = {stable!r} "
              f"(S = {largest:.6g}), the first step {first} = 0.3 times it (within 1e-12)",
              run.returncode == 0 and reduced is not None and first is not None
              and abs(reduced - stable) <= 1e-12 * stable and abs(first - 0.3 * stable) <= 1e-12 * stable,
              f"{result}\n{run.describe()}")


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


def prk_streamed_rows(sus, decks, check):
    """Rows of 256 points and more are padded to whole cache lines and the new `in` is
    streamed: the same digests as ordinary stores, on 1 and 2 ranks."""
    sets = ["grid.level.resolution=[512,24,1]", "grid.level.patches=[2,2,1]",
            "grid.level.upper=[512.0,24.0,1.0]", "stencil.radius=2", "time.max_timesteps=4"]
    runs = {(ranks, streaming): sus.run(str(decks / "prk_2d.yaml"), ranks=ranks,
                                        sets=[*sets, f"scheduler.streaming_stores={streaming}"])
            for ranks, streaming in ((1, "false"), (1, "true"), (2, "true"))}
    reference = runs[(1, "false")]
    for (ranks, streaming), run in runs.items():
        check(f"PRK 2D 512 x 24 on {ranks} rank(s), streaming_stores {streaming}: validates, "
              "the digests of 1 rank without streaming",
              run.returncode == 0 and "Solution validates" in run.stdout and run.digests
              and run.digests == reference.digests, run.describe())


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
    jacobi_order(sus, deck, [1], check)
    capped = sus.run(str(deck), ranks=2, sets=["time.max_timesteps=7"])
    check("jacobi: max_timesteps ends it first", capped.returncode == 0
          and capped.analysis.get("sweeps") == 7, capped.describe())


# Converged grids, tolerances and how near 2r the order must be. Converged,
# what is left is the discretisation error; what the iteration has not
# removed is about the update's RMS times 2 N^2 / pi^2, far below it (1e-9
# leaves 2e-7 against 1.5e-4 on 32^3 at r = 1; 1e-13 leaves 5e-12 against
# 7e-10 on 16^3 at r = 4). The exact discrete solutions (solved apart by
# conjugate gradients) give orders 2.15 (16, 32) at r = 1, 6.29 and 6.21 at
# r = 3, 8.34 and 8.23 at r = 4 (8, 12, 16): the coarse grids are not yet
# asymptotic, hence 0.4 there. The sweeps are capped (r = 1 takes 2,817 on
# 32^3) so that a diverging iteration fails in seconds.
JACOBI_LADDER = {1: ([16, 32], 1e-9, 0.2, 100000), 3: ([8, 12, 16], 1e-13, 0.4, 20000),
                 4: ([8, 12, 16], 1e-13, 0.4, 20000)}


def jacobi_order(sus, deck, radii, check):
    """Converged, Jacobi's error is the star's discretisation error: order 2r."""
    for r in radii:
        grids, tolerance, margin, sweeps = JACOBI_LADDER[r]
        errors = []
        for n in grids:
            done = sus.run(str(deck), ranks=2, timeout=300, sets=[
                f"stencil.radius={r}", f"grid.level.extra_cells=[{r},{r},{r}]", f"stencil.tolerance={tolerance!r}",
                f"time.max_timesteps={sweeps}", f"grid.level.resolution=[{n},{n},{n}]"])
            errors.append(done.analysis.get("L2 error", float("nan")))
            check(f"jacobi r={r} on {n}^3 converges to {tolerance:g}", done.returncode == 0
                  and done.analysis.get("last update RMS", 1) < tolerance, done.describe())
        orders = [math.log(errors[i] / errors[i + 1]) / math.log(grids[i + 1] / grids[i])
                  for i in range(len(grids) - 1)]
        print(f"  jacobi r = {r}, converged: " + ", ".join(f"L2 error {e:.6e} on {n}^3" for e, n in zip(errors, grids))
              + f"; orders {', '.join(f'{o:.3f}' for o in orders)}")
        check(f"jacobi r={r}: the converged solution's error falls at order {2 * r} (within {margin})",
              orders and all(abs(o - 2 * r) < margin for o in orders), str(errors))


def bad_decks(sus, decks, work, check):
    """Deck errors: exit 1 and one message, on 1 rank (sus reports alone) and on 3 (rank 0
    reports for every rank)."""
    deck = decks / "heat.yaml"
    cases = [
        (["stencil.radius=5"], r"stencil\.radius"),
        (["stencil.kernel=heat3"], r"heat, jacobi, prk|heat, jacobi or prk"),
        (["stencil.radius=2"], r"extra_cells.*stencil\.radius = 2"),
        (["grid.level.patches=[16,1,1]", "stencil.radius=3", "grid.level.extra_cells=[3,3,3]"],
         r"patches 2 cells wide along x are narrower than stencil\.radius 3"),
        (["stencil.alpha=0"], r"stencil\.alpha.*out of range"),
        (["stencil.wavenumber=0"], r"stencil\.wavenumber.*out of range"),
    ]
    for index, (sets, message) in enumerate(cases):
        ranks = 1 if index % 2 == 0 else 3
        run = sus.run(str(deck), ranks=ranks, sets=sets)
        errors = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
        check(f"bad deck {' '.join(sets)} on {ranks} rank(s): exit 1, one message naming it",
              run.returncode == 1 and len(errors) == 1 and re.search(message, errors[0]) is not None,
              run.describe())

    # Periodic axes the exact solutions cannot have, in deck files: the message
    # names the file, the line and column of grid.level.periodic, and the key.
    periodic = (decks / "heat_periodic.yaml").read_text()
    jacobi = (decks / "jacobi.yaml").read_text()
    files = [
        ("y_and_a_half.yaml", periodic, "    upper: [1.0, 1.0, 1.0]\n", "    upper: [1.0, 1.5, 1.0]\n", [],
         "the exact solution sin(2 k pi y) is periodic along y only if the box's length times "
         "stencil.wavenumber is a whole number"),
        ("jacobi_periodic_z.yaml", jacobi, "    extra_cells: [1, 1, 1]\n",
         "    extra_cells: [1, 1, 0]\n    periodic: [false, false, true]\n", [],
         "the jacobi kernel's exact solution grows along z: z cannot be periodic"),
    ]
    for name, text, old, new, sets, message in files:
        check(f"{name}: the deck holds {old.strip()!r} once", text.count(old) == 1)
        path = work / name
        path.write_text(text.replace(old, new))
        lines = path.read_text().splitlines()
        line = next(n for n, content in enumerate(lines, 1) if content.strip().startswith("periodic:"))
        where = f"sus: error: {path}:{line}:{lines[line - 1].index('[') + 1}: grid.level.periodic: {message}"
        for ranks in (1, 3):
            run = sus.run(str(path), ranks=ranks, sets=sets)
            errors = [l for l in run.stderr.splitlines() if l.startswith("sus:")]
            check(f"{name} on {ranks} rank(s): exit 1, one message at FILE:LINE:COLUMN of grid.level.periodic",
                  run.returncode == 1 and errors == [where] and not run.digests, f"want {where!r}\n{run.describe()}")
        validated = sus.run_serial(["--validate", str(path)])
        check(f"{name}: --validate refuses it the same way", validated.returncode == 1
              and validated.stderr.strip() == where, validated.describe())
    # What makes them errors: the same box with two waves along y runs, and
    # so does Jacobi with a periodic x.
    allowed = [("y_and_a_half.yaml", ["stencil.wavenumber=2", "time.max_timesteps=2"]),
               ("jacobi_periodic_z.yaml", ["grid.level.periodic=[true,false,false]", "grid.level.extra_cells=[0,1,1]",
                                           "time.max_timesteps=2"])]
    for name, sets in allowed:
        run = sus.run(str(work / name), ranks=1, sets=sets)
        check(f"{name} with {' '.join(sets)}: runs (exit 0)", run.returncode == 0 and run.digests, run.describe())


if __name__ == "__main__":
    main()
