"""Burgers on refined grids, in lockstep (docs/amr.md):

- a level 1 that covers the whole domain is, on that level, bitwise the
  single-level run at the fine resolution: nothing reaches it from the coarse
  level (it has no coarse-fine boundary), and the step is the finer level's;
- a level 1 over part of the domain (coarse-fine ghost cells refined from
  level 0, level 0 averaged from level 1 after each step): the digests of
  both levels are the same on 1, 2, 3, 4 and 8 (oversubscribed) ranks, in
  every scheduler mode, tiled and untiled, and with another patch layout,
  and level 0 is not the single-level run's (the averages reached it);
- the moves between levels are visible: --emit-taskgraph's DOT holds the
  averaging tasks and message edges labelled with coarse cells sent "to
  refine" and fine cells "averaged"; --trace holds spans of the averaging
  tasks, of "average from finer level" and "refine from coarser level";
- three levels: the same on 1 and 2 ranks (outputs and restarts of refined
  runs: test_amr_archive.py);
- the heat stencil (HEAT_DECK): the covering level bitwise the fine run, a
  partial level's digests equal on 1 and 3 ranks; its jacobi kernel refuses
  refined levels, naming amr.regions;
- tagging at initialisation (amr without regions): Burgers' fronts make
  levels 1 and 2 with the same digests on 1, 2 and 3 ranks in every mode; a
  threshold nothing exceeds leaves level 0 alone; the walk-through's heat
  component (TAGGED_HEAT_DECK) tags three levels, the same on 1 and 3 ranks;
  the stencil component, which does not tag, refuses such a deck naming
  amr.max_levels.

usage: test_amr.py --sus S --mpirun M [--mpirun-flag F]... DECK HEAT_DECK TAGGED_HEAT_DECK
"""
import sys

from sus_runner import Checks, Sus, parse_common_args

STEPS = ["--max-timesteps", "4"]
COARSE = ["grid.level.resolution=[16,16,16]", "grid.level.patches=[2,2,2]"]
PARTIAL = [*COARSE, "amr.max_levels=2", "amr.regions.front={level: 1, low: [4, 4, 4], high: [12, 12, 12]}"]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    sus, deck, heat, tagged_heat = Sus(sus_path, mpirun, flags), rest[0], rest[1], rest[2]
    check = Checks()

    def run(name, sets, ranks=1, options=(), on=None):
        result = sus.run(on or deck, ranks, sets, [*STEPS, *options])
        check(f"{name} runs", result.returncode == 0 and result.digests, result.describe())
        return result

    covering = run("a level 1 over the whole domain",
                   [*COARSE, "amr.max_levels=2", "amr.regions.all={level: 1, low: [0, 0, 0], high: [16, 16, 16]}"])
    fine = run("the single-level run at the fine resolution",
               ["grid.level.resolution=[32,32,32]", "grid.level.patches=[2,2,2]"])
    check("level 1 over the whole domain is bitwise the single-level fine run",
          covering.digests.get("u@level1") == fine.digests.get("u"),
          f"{covering.digests} against {fine.digests}")

    coarse = run("the single-level run at the coarse resolution", COARSE)
    partial = [run("a level 1 over part of the domain, 1 rank async", PARTIAL, 1, ["--scheduler", "async"]),
               run("the same, 2 ranks host", PARTIAL, 2, ["--scheduler", "host"]),
               run("the same, 3 ranks sync", PARTIAL, 3, ["--scheduler", "sync"]),
               run("the same, 2 ranks async, patches [4,2,2]", [*PARTIAL, "grid.level.patches=[4,2,2]"], 2,
                   ["--scheduler", "async"]),
               run("the same, 4 ranks async, untiled", [*PARTIAL, "scheduler.tiling=false"], 4,
                   ["--scheduler", "async"]),
               run("the same, 8 ranks (oversubscribed) sync, patches [4,2,2]",
                   [*PARTIAL, "grid.level.patches=[4,2,2]"], 8, ["--scheduler", "sync"])]
    first = partial[0].digests
    check("two levels: both levels' digests equal on 1-4 and 8 ranks, every mode, tiled and untiled, "
          "another layout",
          set(first) == {"u", "u@level1"} and all(r.digests == first for r in partial),
          "\n".join(str(r.digests) for r in partial))
    check("level 0 holds level 1's averages (its digest is not the single-level run's)",
          first.get("u") != coarse.digests.get("u"), f"{first} and {coarse.digests}")

    import json
    import os
    import tempfile
    with tempfile.TemporaryDirectory(prefix="tessera-amr-") as tmp:
        dot, trace = os.path.join(tmp, "graph.dot"), os.path.join(tmp, "trace.json")
        # Level 0 in [4,2,2] patches: some fine patches average onto a coarse patch of another rank.
        run("two levels on 3 ranks with --emit-taskgraph and --trace", [*PARTIAL, "grid.level.patches=[4,2,2]"], 3,
            ["--emit-taskgraph", dot, "--trace", trace])
        graph = open(dot).read() if os.path.exists(dot) else ""
        check("--emit-taskgraph shows the averaging tasks and the edges between levels",
              "average u onto level 0 on patch" in graph and "u to refine" in graph
              and "u averaged" in graph and "style=dashed" in graph, graph[:3000])
        events = json.load(open(trace)).get("traceEvents", []) if os.path.exists(trace) else []
        names = {event.get("name") for event in events}
        check("--trace shows the averaging tasks, the averaging and the refining of ghost cells",
              {"average u onto level 0", "average from finer level", "refine from coarser level"} <= names,
              str(sorted(n for n in names if n))[:2000])

    three = [*PARTIAL, "amr.max_levels=3", "amr.regions.core={level: 2, low: [10, 10, 10], high: [14, 14, 14]}"]
    levels3 = [run("three levels, 1 rank", three, 1), run("three levels, 2 ranks", three, 2)]
    check("three levels: every level's digest equal on 1 and 2 ranks",
          set(levels3[0].digests) == {"u", "u@level1", "u@level2"}
          and levels3[0].digests == levels3[1].digests,
          f"{levels3[0].digests} and {levels3[1].digests}")

    covering = run("heat: a level 1 over the whole domain",
                   [*COARSE, "amr.max_levels=2", "amr.regions.all={level: 1, low: [0, 0, 0], high: [16, 16, 16]}"],
                   on=heat)
    fine = run("heat: the single-level run at the fine resolution",
               ["grid.level.resolution=[32,32,32]", "grid.level.patches=[2,2,2]"], on=heat)
    check("heat: level 1 over the whole domain is bitwise the single-level fine run",
          covering.digests.get("u@level1") == fine.digests.get("u"),
          f"{covering.digests} against {fine.digests}")
    partial = [run("heat: a level 1 over part of the domain, 1 rank", PARTIAL, 1, on=heat),
               run("heat: the same, 3 ranks", PARTIAL, 3, on=heat)]
    check("heat: both levels' digests equal on 1 and 3 ranks",
          set(partial[0].digests) == {"u", "u@level1"} and partial[0].digests == partial[1].digests,
          f"{partial[0].digests} and {partial[1].digests}")
    refused = sus.run(heat, 1, [*PARTIAL, "stencil.kernel=jacobi"], STEPS)
    check("the jacobi kernel refuses refined levels, naming amr.regions",
          refused.returncode == 1 and "amr.regions" in refused.stderr and "one level" in refused.stderr,
          refused.describe())

    tagged = ["grid.level.resolution=[16,16,16]", "amr.max_levels=3", "amr.max_patch_size=8",
              "burgers.refine_threshold=0.04"]
    runs = [run("tagged levels, 1 rank host", tagged, 1, ["--scheduler", "host"]),
            run("tagged levels, 2 ranks async", tagged, 2, ["--scheduler", "async"]),
            run("tagged levels, 3 ranks sync, level 0 in [1,3,2] patches", [*tagged, "grid.level.patches=[1,3,2]"],
                3, ["--scheduler", "sync"])]
    check("tagging: Burgers' fronts make levels 1 and 2, the same digests on 1-3 ranks, every mode, "
          "another layout", set(runs[0].digests) == {"u", "u@level1", "u@level2"}
          and all(r.digests == runs[0].digests for r in runs), "\n".join(str(r.digests) for r in runs))
    untagged = run("a threshold nothing exceeds", [*tagged, "burgers.refine_threshold=10"])
    check("tagging nothing leaves level 0 alone", set(untagged.digests) == {"u"}, str(untagged.digests))
    heats = [run("the walk-through's heat, tagged, 1 rank", [], 1, on=tagged_heat),
             run("the same, 3 ranks", [], 3, on=tagged_heat)]
    check("the walk-through's heat tags three levels, the same on 1 and 3 ranks",
          set(heats[0].digests) == {"u", "u@level1", "u@level2"} and heats[0].digests == heats[1].digests,
          f"{heats[0].digests} and {heats[1].digests}")
    refused = sus.run(heat, 1, [*COARSE, "amr.max_levels=2"], STEPS)
    check("the stencil component, which does not tag, refuses levels without regions, naming max_levels",
          refused.returncode == 1 and "max_levels" in refused.stderr and "tags no cells" in refused.stderr,
          refused.describe())
    check.finish()


if __name__ == "__main__":
    main()
