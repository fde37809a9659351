"""Refined runs in the archive (docs/archiver.md, "Levels"): Burgers on three
levels with outputs and checkpoints.

- every level is written: the run directory's files hold /levels/1/0 and
  /levels/2/0, and python/tessera_archive's digest of u, u@level1 and
  u@level2 is the one sus printed;
- the XDMF of an output is a spatial collection of one uniform grid per
  level region, each pointing at a dataset of the file's shape;
- a restart from the checkpoint at timestep 3 on 3 ranks (the run wrote it
  on 2) continues bitwise: tessera-compare --exact over every level of the
  outputs both wrote, and the same digests;
- the same problem on 1 rank with another level-0 layout compares equal
  bitwise (layouts may differ, levels and regions may not), and a run with
  another level-2 region is "not comparable" (exit 2), naming the level;
- a run whose levels the component tagged restarts from its checkpoint on
  another rank count with the checkpoint's levels (its deck has none), bitwise;
- tessera-inspect lists the levels and their regions, and its --stats of
  u@level2 are those of the level's cells; --line of u@level1 prints only
  the cells the level holds.

usage: test_amr_archive.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR PYTHON_DIR WORKDIR
"""
import re
import xml.etree.ElementTree as ElementTree

from archive_tools import main, tool
from sus_runner import Checks

LEVELS = ["grid.level.resolution=[16,16,16]", "grid.level.patches=[2,2,2]", "amr.max_levels=3",
          "amr.regions.middle={level: 1, low: [4, 4, 4], high: [12, 12, 12]}",
          "amr.regions.core={level: 2, low: [10, 10, 10], high: [14, 14, 14]}",
          "time.max_timesteps=6", "output.timestep_interval=2", "checkpoint.timestep_interval=3"]


def run_checks(sus, deck, tools, work):
    import h5py
    import numpy as np
    from tessera_archive import open_run

    check = Checks()

    def run(name, ranks, sets, options=(), on=deck):
        result = sus.run(on, ranks, sets, options)
        check(f"{name}: exit 0", result.returncode == 0 and result.digests, result.describe())
        return result

    straight = run("three levels on 2 ranks, outputs and checkpoints", 2, [*LEVELS, f"output.dir={work / 'straight'}"])
    archive = open_run(work / "straight")
    check("the outputs list u, u@level1 and u@level2; 3 levels",
          archive.variables == ["u", "u@level1", "u@level2"] and archive.levels() == 3
          and archive.timesteps == [0, 2, 4, 6], f"{archive.variables} {archive.timesteps}")
    digests = {name: f"{archive.digest(name):016x}" for name in archive.variables}
    check("python/tessera_archive's digest of every level is the one sus printed",
          digests == straight.digests, f"{digests} vs {straight.digests}")

    last = archive.path / "t00006.h5"
    xdmf = ElementTree.parse(archive.path / "t00006.xmf").getroot()
    collection = xdmf.find("Domain/Grid")
    grids = collection.findall("Grid") if collection is not None else []
    shapes_ok = True
    with h5py.File(last, "r") as f:
        for grid in grids:
            item = grid.find("Attribute/DataItem")
            path = item.text.split(":", 1)[1]
            shapes_ok &= path in f and " ".join(map(str, f[path].shape)) == item.get("Dimensions")
    check("the XDMF is a spatial collection of level 0 and each level's region, "
          "every DataItem a dataset of its shape",
          collection is not None and collection.get("CollectionType") == "Spatial"
          and [g.get("Name") for g in grids] == ["level 0", "level 1 region 0", "level 2 region 0"]
          and shapes_ok, ElementTree.tostring(xdmf, encoding="unicode")[:2000])

    restarted = run("restart from timestep 3 on 3 ranks", 3, [],
                    ["--restart", str(work / "straight"), "--checkpoint", "3"], on=None)
    compared = tool(tools, "tessera-compare", "--exact", archive.path, restarted_dir(work))
    check("the restart on 3 ranks is bitwise the straight run on every level (tessera-compare --exact)",
          compared.returncode == 0 and "timesteps 4, 6" in compared.stdout, compared.stdout + compared.stderr)
    check("the restart prints the straight run's digests", restarted.digests == straight.digests,
          f"{restarted.digests} vs {straight.digests}")

    run("the same on 1 rank, level 0 in [1,2,4] patches", 1,
        [*LEVELS, "grid.level.patches=[1,2,4]", f"output.dir={work / 'layout'}"])
    compared = tool(tools, "tessera-compare", "--exact", archive.path, work / "layout")
    check("another rank count and level-0 layout compares equal bitwise",
          compared.returncode == 0 and "equal: 4 outputs" in compared.stdout, compared.stdout + compared.stderr)
    other = [s for s in LEVELS if not s.startswith("amr.regions.core")]
    run("another level-2 region", 1, [*other, "amr.regions.core={level: 2, low: [12, 10, 10], high: [16, 14, 14]}",
                                      f"output.dir={work / 'other'}"])
    compared = tool(tools, "tessera-compare", archive.path, work / "other")
    check("another level-2 region is not comparable (exit 2), naming level 2",
          compared.returncode == 2 and "level 2 differs" in compared.stdout, compared.stdout + compared.stderr)

    tagged = ["grid.level.resolution=[16,16,16]", "amr.max_levels=3", "amr.max_patch_size=8",
              "burgers.refine_threshold=0.04", "time.max_timesteps=6", "output.timestep_interval=3",
              "checkpoint.timestep_interval=3", f"output.dir={work / 'tagged'}"]
    first = run("tagged levels on 2 ranks, outputs and checkpoints", 2, tagged)
    tagged_run = open_run(work / "tagged").path
    again = run("its restart from timestep 3 on 1 rank", 1, [],
                ["--restart", str(tagged_run), "--checkpoint", "3"], on=None)
    compared = tool(tools, "tessera-compare", "--exact", tagged_run, work / "tagged")
    check("the tagged run restarts with its checkpoint's levels, bitwise on every level",
          compared.returncode == 0 and "timesteps 6" in compared.stdout and again.digests == first.digests
          and set(first.digests) == {"u", "u@level1", "u@level2"},
          f"{compared.stdout}{compared.stderr}{first.digests} vs {again.digests}")

    listing = tool(tools, "tessera-inspect", archive.path)
    check("tessera-inspect lists each level, its ratio and its regions",
          listing.returncode == 0 and "level 1: ratio [2, 2, 2], resolution [32, 32, 32], 1 region(s): "
          "[[8, 8, 8], [24, 24, 24]) in [2, 2, 2] patches" in listing.stdout
          and "level 2: ratio [2, 2, 2], resolution [64, 64, 64]" in listing.stdout
          and "variables: u u@level1 u@level2" in listing.stdout, listing.stdout + listing.stderr)
    stats = tool(tools, "tessera-inspect", archive.path, "--stats", "--var", "u@level2", "--timestep", "6")
    row = re.search(r"^\s+6\s+\S+\s+u@level2\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", stats.stdout, re.M)
    field = archive.field("u@level2", 6)
    cells = field[~np.isnan(field)]
    mine = [cells.min(), cells.max(), cells.mean(), np.sqrt((cells * cells).mean())]
    check("--stats of u@level2 are over the level's 8^3 cells",
          row is not None and cells.size == 512
          and all(abs(float(x) - y) <= 1e-8 * max(1.0, abs(y)) for x, y in zip(row.groups(), mine)),
          f"{stats.stdout}{stats.stderr}\nvs {mine}")
    line = tool(tools, "tessera-inspect", archive.path, "--line", "u@level1", "--timestep", "6",
                "--axis", "x", "--at", "12,12")
    indices = [int(text.split()[0]) for text in line.stdout.splitlines() if not text.startswith("#")]
    check("--line of u@level1 prints the cells the level holds along x (8 to 23)",
          line.returncode == 0 and indices == list(range(8, 24)), line.stdout + line.stderr)
    check.finish()


def restarted_dir(work):
    """The run directory a restart of work/straight wrote: the newest version beside it."""
    versions = sorted(p for p in work.iterdir() if p.name.startswith("straight.") and p.is_dir())
    return versions[-1]


if __name__ == "__main__":
    main(run_checks)
