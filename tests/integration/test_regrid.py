"""Regridding (amr.regrid_interval; docs/amr.md, "Regridding"): levels that
follow Burgers' fronts.

- every regrid_interval timesteps the component tags again and the levels
  change (at 2 or more of the 3 regrids of the run below); the digests of every
  level are the same on 1, 2, 3 and 4 ranks, in every scheduler mode and
  with another level-0 layout, and differ from the run whose levels stay as
  tagged at the start;
- a restart from a checkpoint taken at a regrid's timestep, and from one
  between regrids, on other rank counts, ends on the same digests;
- the outputs follow the hierarchy: each output's XDMF describes the levels
  of its timestep, and run.xmf gathers them all;
- --trace shows the regrid's phases (tagging, clustering, the transfer, the
  compilation);
- the walk-through's heat component regrids too, the same on 1 and 3 ranks;
- tagging nothing leaves level 0 alone and the run goes on; tagging
  everything refines the whole domain.

usage: test_regrid.py --sus S --mpirun M [--mpirun-flag=F]... DECK HEAT_DECK WORKDIR
"""
import json
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

from sus_runner import Checks, Sus, fresh_directory, parse_common_args

REGRID = ["grid.level.resolution=[12,12,12]", "grid.level.patches=[2,2,2]", "amr.max_levels=3",
          "amr.max_patch_size=4", "burgers.refine_threshold=0.04", "amr.regrid_interval=2",
          "time.max_timesteps=8"]


def regrids(run):
    """(changed, tagged) from the summary's regrid line, or None."""
    found = re.search(r"^  regrids: (\d+) of (\d+) changed the levels; cells per level now (.*)$",
                      run.stdout, re.M)
    return (int(found.group(1)), int(found.group(2)), found.group(3).split()) if found else None


def level_regions(xmf):
    """The number of grids of each level in one output's XDMF."""
    counts = {}
    for grid in ElementTree.parse(xmf).getroot().iter("Grid"):
        name = grid.get("Name", "")
        if name.startswith("level "):
            level = int(name.split()[1])
            counts[level] = counts.get(level, 0) + 1
    return counts


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, heat_deck, work = rest[0], rest[1], pathlib.Path(rest[2])
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()

    def run(name, ranks, sets, options=(), on=None):
        return sus.checked(check, name, deck if on is None else on, ranks, sets, options)

    with fresh_directory(work):
        trace_file = work / "trace.json"
        runs = [run("regridding every 2 steps, 1 rank host", 1, REGRID, ["--scheduler", "host"]),
                run("the same, 2 ranks async, traced", 2, REGRID,
                    ["--scheduler", "async", "--trace", str(trace_file)]),
                run("the same, 3 ranks sync, level 0 in [1,3,2] patches", 3,
                    [*REGRID, "grid.level.patches=[1,3,2]"], ["--scheduler", "sync"]),
                run("the same, 4 ranks async", 4, REGRID, ["--scheduler", "async"])]
        first = regrids(runs[0])
        check("3 regrids in 8 steps (before steps 3, 5, 7), the levels changed at 2 or more",
              first is not None and first[1] == 3 and first[0] >= 2, runs[0].stdout)
        check("every level's digest is the same on 1 to 4 ranks, every mode, another layout",
              set(runs[0].digests) == {"u", "u@level1", "u@level2"}
              and all(r.digests == runs[0].digests and regrids(r) == first for r in runs),
              "\n".join(f"{r.digests} {regrids(r)}" for r in runs))
        rebuilt = run("the same, 2 ranks, the timestep graph recompiled every step", 2,
                      [*REGRID, "scheduler.rebuild_every_timestep=true"])
        check("... the same digests (the recompiled graph is the timestep's, not the tagging's)",
              rebuilt.digests == runs[0].digests, f"{rebuilt.digests}")
        still = run("the same levels throughout (no regrid_interval)", 2,
                    [s for s in REGRID if not s.startswith("amr.regrid_interval")])
        check("regridding changes the finer levels' result",
              still.digests.get("u@level2") != runs[0].digests.get("u@level2")
              and regrids(still) is None, f"{still.digests} against {runs[0].digests}")

        # Restarts, from a regrid's timestep and from between regrids.
        archived = [*REGRID, "output.timestep_interval=3", "checkpoint.timestep_interval=3",
                    "checkpoint.cycle=10", f"output.dir={work / 'straight'}"]
        straight = run("regridding with outputs and checkpoints, 2 ranks", 2, archived)
        check("... the same digests as without them", straight.digests == runs[0].digests,
              f"{straight.digests}")
        run_dir = (work / "straight").resolve()  # the link moves to each restart's directory
        for ranks, timestep in ((3, 6), (1, 3)):
            restarted = run(f"restart from timestep {timestep} on {ranks} rank(s)", ranks, [],
                            ["--restart", str(run_dir), "--checkpoint", str(timestep)], on="")
            check(f"... ends on the straight run's digests",
                  restarted.digests == straight.digests, f"{restarted.digests} against {straight.digests}")

        # The outputs follow the levels.
        per_step = {int(p.stem[1:]): level_regions(p) for p in sorted(run_dir.glob("t*.xmf"))}
        check("each output's XDMF has the levels of its timestep (level 2 changes)",
              sorted(per_step) == [0, 3, 6, 8]
              and len({counts.get(2) for counts in per_step.values()}) > 1, str(per_step))
        gathered = level_regions(run_dir / "run.xmf")
        check("run.xmf gathers every output's grids",
              gathered.get(2) == sum(counts.get(2, 0) for counts in per_step.values()),
              f"{gathered} against {per_step}")

        names = {event.get("name") for event in json.loads(trace_file.read_text())["traceEvents"]}
        wanted = {"regrid", "regrid: tagging", "regrid: clustering", "grid transfer", "regrid: compile"}
        check("the trace shows the regrid's phases", wanted <= names,
              str(sorted(n for n in names if n and "regrid" in n or n == "grid transfer")))

        heat = [run("the walk-through's heat, regridding every 2 steps, 1 rank", 1,
                    ["amr.regrid_interval=2", "time.max_timesteps=8"], on=heat_deck),
                run("the same, 3 ranks", 3, ["amr.regrid_interval=2", "time.max_timesteps=8"], on=heat_deck)]
        check("heat regrids, the same digests on 1 and 3 ranks",
              regrids(heat[0]) is not None and regrids(heat[0])[1] == 3 and regrids(heat[0])[0] >= 1
              and heat[0].digests == heat[1].digests and regrids(heat[0]) == regrids(heat[1]),
              f"{heat[0].digests} {regrids(heat[0])}\n{heat[1].digests} {regrids(heat[1])}")

        nothing = run("a threshold nothing exceeds", 2, [*REGRID, "burgers.refine_threshold=10"])
        check("tagging nothing leaves level 0 alone; the run goes on",
              set(nothing.digests) == {"u"} and nothing.timesteps >= 3
              and regrids(nothing) is not None and regrids(nothing)[2] == ["1728"], nothing.stdout)
        everything = run("a threshold every cell exceeds", 2,
                         ["grid.level.resolution=[8,8,8]", "amr.max_levels=2", "amr.max_patch_size=4",
                          "burgers.refine_threshold=1e-12", "amr.regrid_interval=2",
                          "time.max_timesteps=4"])
        check("tagging everything refines the whole domain",
              regrids(everything) is not None and regrids(everything)[2] == ["512", "4096"],
              everything.stdout)
    check.finish()


if __name__ == "__main__":
    main()
