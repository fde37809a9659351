"""The swirl (component advection; docs/advection.md): phi carried by a flow
that reverses at t = 1, so that at t = 2 the exact solution is the initial one.

- on one level the scheme converges at about second order (L1 error at t = 2
  on 64^2 and 128^2 cells), and the integral of phi stays what it was
  to rounding (the flux form, and face velocities whose divergence vanishes);
- three levels that follow the blob (tagged, regridding every 2 steps),
  lockstep: the composite errors converge under refinement of all levels, each
  within 1.15x the uniform grid's at the finest resolution; refluxed (the
  default) the integral of phi stays what it was to 1e-13, without refluxing
  it drifts far above rounding (lockstep and subcycled);
- the refined run's digests are the same on 1, 2 and 3 ranks, in every
  scheduler mode and with another level-0 layout; restarts from a checkpoint
  between regrids and from one at a regrid, on other rank counts, end on the
  same digests and report the same change of the integral (the initial
  integral travels with the state);
- subcycled (amr.subcycle): the composite errors converge at about second
  order, within 5 % of lockstep's, in a quarter of its coarse steps, the
  integral kept to 1e-13; every step's averages onto the coarser levels are
  made in the fine sweeps (sus --stats' swept_averages); the
  digests are the same on 1, 2 and 3 ranks, every mode, another layout, and
  restarts (between regrids and at one, other rank counts) end on them;
- the example decks (swirl_amr.yaml, swirl_uniform.yaml) are valid.

usage: test_advection.py --sus S --mpirun M [--mpirun-flag=F]... DECK_DIR WORKDIR
"""
import json
import math
import pathlib
import sys

from sus_runner import Checks, Sus, fresh_directory, parse_common_args

# Thin along z (the flow has no z component): 2 cells on level 0.
THIN = ["grid.level.upper=[1,1,0.01]", "grid.level.patches=[2,2,1]", "amr.max_patch_size=8"]


def resolution(n):
    return f"grid.level.resolution=[{n},{n},2]"


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    decks, work = pathlib.Path(rest[0]), pathlib.Path(rest[1])
    amr_deck, uniform_deck = str(decks / "swirl_amr.yaml"), str(decks / "swirl_uniform.yaml")
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()

    def run(name, deck, ranks, sets, options=()):
        return sus.checked(check, name, deck, ranks, sets, options)

    for deck in (amr_deck, uniform_deck):
        valid = sus.run_serial(["--validate", deck])
        check(f"{pathlib.Path(deck).name} is valid", valid.returncode == 0, valid.describe())

    uniform = {n: run(f"one level of {n}^2 cells to t = 2", uniform_deck, 1, [*THIN, resolution(n)])
               for n in (64, 128)}
    errors = {n: r.analysis.get("L1 error", math.nan) for n, r in uniform.items()}
    order = math.log2(errors[64] / errors[128])
    check(f"one level converges at about second order (L1 {errors}, order 64->128 {order:.2f})",
          order > 1.7, str(errors))
    changes = [r.analysis.get("total change", math.nan) for r in uniform.values()]
    check(f"one level keeps the integral of phi to rounding (relative changes {changes})",
          all(abs(c) <= 1e-13 for c in changes))

    refined = {n: run(f"three levels on {n}^2 cells, regridding every 2 steps, lockstep, to t = 2",
                      amr_deck, 2, [*THIN, resolution(n), "amr.subcycle=false"]) for n in (16, 32)}
    amr_errors = {4 * n: r.analysis.get("L1 error", math.nan) for n, r in refined.items()}
    amr_order = math.log2(amr_errors[64] / amr_errors[128])
    check(f"three levels converge under refinement of all levels (L1 {amr_errors}, order "
          f"{amr_order:.2f})", amr_order > 1.5, str(amr_errors))
    check("... each within 1.15x the error of one level at its finest resolution",
          all(amr_errors[n] <= 1.15 * errors[n] for n in (64, 128)),
          f"{amr_errors} against {errors}")
    kept = [r.analysis.get("total change", math.nan) for r in refined.values()]
    check(f"lockstep, refluxed: the integral of phi kept to 1e-13 ({kept})",
          all(abs(c) <= 1e-13 for c in kept))

    subcycled = {n: run(f"three levels on {n}^2 cells, subcycled, to t = 2", amr_deck, 2,
                        [*THIN, resolution(n), "amr.subcycle=true"]) for n in (16, 32)}
    sub_errors = {4 * n: r.analysis.get("L1 error", math.nan) for n, r in subcycled.items()}
    sub_order = math.log2(sub_errors[64] / sub_errors[128])
    check(f"subcycled, three levels converge at about second order (L1 {sub_errors}, order "
          f"{sub_order:.2f})", sub_order > 1.5, str(sub_errors))
    check("... and agree with lockstep to the order of the scheme (L1 within 5 %)",
          all(abs(sub_errors[n] / amr_errors[n] - 1) < 0.05 for n in sub_errors),
          f"{sub_errors} against {amr_errors}")
    kept = [r.analysis.get("total change", math.nan) for r in subcycled.values()]
    check(f"subcycled, refluxed: the integral of phi kept to 1e-13 ({kept})",
          all(abs(c) <= 1e-13 for c in kept))
    for mode in ("lockstep", "subcycled"):
        drifting = run(f"{mode} without refluxing, 8^2 on level 0, to t = 2", amr_deck, 2,
                       [*THIN, resolution(8), "amr.reflux=false",
                        f"amr.subcycle={'true' if mode == 'subcycled' else 'false'}"])
        drift = drifting.analysis.get("total change", math.nan)
        check(f"{mode} without refluxing: the integral drifts far above rounding ({drift:.3e})",
              abs(drift) > 1e-9)
    check("... in a quarter of lockstep's coarse steps (ratio 2, three levels)",
          all(4 * subcycled[n].timesteps in range(refined[n].timesteps, refined[n].timesteps + 4)
              for n in subcycled),
          str({n: (subcycled[n].timesteps, refined[n].timesteps) for n in subcycled}))

    short = [*THIN, resolution(16), "time.max_timesteps=20", "amr.subcycle=false"]
    runs = [run("20 steps, 1 rank host", amr_deck, 1, short, ["--scheduler", "host"]),
            run("the same, 2 ranks async", amr_deck, 2, short, ["--scheduler", "async"]),
            run("the same, 3 ranks sync, level 0 in [1,2,1] patches", amr_deck, 3,
                [*short, "grid.level.patches=[1,2,1]"], ["--scheduler", "sync"])]
    check("every level's digest is the same on 1 to 3 ranks, every mode, another layout",
          set(runs[0].digests) == {"phi", "phi@level1", "phi@level2"}
          and all(r.digests == runs[0].digests for r in runs)
          and all(r.analysis == runs[0].analysis for r in runs),
          "\n".join(f"{r.digests} {r.analysis}" for r in runs))

    sub_short = [*short[:-1], "amr.subcycle=true"]
    with fresh_directory(work):
        stats = work / "stats.jsonl"
        sub_runs = [run("20 coarse steps subcycled, 1 rank host", amr_deck, 1, sub_short,
                        ["--scheduler", "host", "--stats", str(stats)])]
        steps = [json.loads(line) for line in stats.read_text().splitlines()] if stats.exists() else []
    # The copy of a coarser level's state that the finer level's averages
    # land on is made before the finer level's substeps: its last sweep makes
    # them as it goes (docs/amr.md, "Subcycling").
    check("subcycled: every step's averages onto the coarser levels made in the fine sweeps",
          len(steps) == 20 and all(step["swept_averages"] > 0 for step in steps),
          str([step.get("swept_averages") for step in steps]))
    sub_runs += [run("the same, 2 ranks async", amr_deck, 2, sub_short, ["--scheduler", "async"]),
                 run("the same, 3 ranks sync, level 0 in [1,2,1] patches", amr_deck, 3,
                     [*sub_short, "grid.level.patches=[1,2,1]"], ["--scheduler", "sync"])]
    check("subcycled: every level's digest is the same on 1 to 3 ranks, every mode, another layout",
          all(r.digests == sub_runs[0].digests and r.analysis == sub_runs[0].analysis
              for r in sub_runs) and sub_runs[0].digests != runs[0].digests,
          "\n".join(f"{r.digests} {r.analysis}" for r in sub_runs))

    with fresh_directory(work):
        for title, sets, plain in (("lockstep", short, runs[0]), ("subcycled", sub_short, sub_runs[0])):
            archived = [*sets, "checkpoint.timestep_interval=5", "checkpoint.cycle=10",
                        f"output.dir={work / title}"]
            straight = run(f"{title}: 20 steps with checkpoints, 2 ranks", amr_deck, 2, archived)
            check("... the same digests as without them", straight.digests == plain.digests,
                  f"{straight.digests}")
            run_dir = (work / title).resolve()
            for ranks, timestep in ((3, 15), (1, 10)):
                restarted = run(f"{title}: restart from timestep {timestep} on {ranks} rank(s)", None,
                                ranks, [], ["--restart", str(run_dir), "--checkpoint", str(timestep)])
                check("... the straight run's digests and change of the integral",
                      restarted.digests == straight.digests
                      and restarted.analysis.get("total change")
                      == straight.analysis.get("total change"),
                      f"{restarted.digests} {restarted.analysis}\nagainst {straight.digests} "
                      f"{straight.analysis}")
    check.finish()


if __name__ == "__main__":
    main()
