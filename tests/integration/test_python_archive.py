"""python/tessera_archive against tessera-inspect on Burgers runs on 1 and 3
ranks: the timesteps, the variables, every output's min, max, mean and RMS
(the stitched whole level, 9 digits), the digests sus printed and the files
keep, the reductions and the run record; the 1- and 3-rank fields are the
same array. tessera-inspect --png draws slices whose pixels show the field
(a large area of many viridis shades; a slice of the initial state differs
from one of the last), and refuses an unknown variable, axis or index.

usage: test_python_archive.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR PYTHON_DIR WORKDIR
"""
import re

from archive_tools import main, tool, viridis_content
from sus_runner import Checks

SETS = ["grid.level.resolution=[16,12,10]", "output.timestep_interval=3", "time.max_timesteps=6",
        "time.max_time=1.0"]


def inspect(tools, *args):
    return tool(tools, "tessera-inspect", *args)


def run_checks(sus, deck, tools, work):
    import numpy as np
    from tessera_archive import RunError, digest_of_cells, open_run

    check = Checks()
    fields = {}
    for ranks, layout in ((1, "[2,2,1]"), (3, "[3,2,2]")):
        base = work / f"burgers{ranks}.tsa"
        run = sus.run(deck, ranks, [*SETS, f"grid.level.patches={layout}", f"output.dir={base}"])
        check(f"{ranks} rank(s): exit 0", run.returncode == 0, run.describe())
        if run.returncode != 0:
            continue
        archive = open_run(base)
        check(f"{ranks} rank(s): timesteps and variables", archive.timesteps == [0, 3, 6]
              and archive.variables == ["u"] and archive.component == "burgers",
              f"{archive.timesteps} {archive.variables} {archive.component}")
        u = archive.field("u")
        whole = archive.field("u", extra_cells=True)
        check(f"{ranks} rank(s): u is the whole interior [i, j, k] (16 x 12 x 10), 18 x 14 x 12 with "
              "the extra cells", u.shape == (16, 12, 10) and whole.shape == (18, 14, 12)
              and np.array_equal(whole[1:-1, 1:-1, 1:-1], u), f"{u.shape} {whole.shape}")
        stats = inspect(tools, base, "--stats")
        rows = {int(m.group(1)): [float(x) for x in m.group(2, 3, 4, 5)] for m in re.finditer(
            r"^\s+(\d+)\s+\S+\s+u\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", stats.stdout, re.M)}
        mine = {t: [f.min(), f.max(), f.mean(), np.sqrt((f * f).mean())]
                for t in archive.timesteps for f in [archive.field("u", t)]}
        check(f"{ranks} rank(s): min, max, mean and RMS of every output equal tessera-inspect --stats",
              stats.returncode == 0 and rows.keys() == mine.keys()
              and all(abs(x - y) <= 1e-8 * max(1.0, abs(y)) for t in rows for x, y in zip(rows[t], mine[t])),
              f"{rows}\nvs {mine}\n{stats.stderr}")
        check(f"{ranks} rank(s): the digest of u is the one sus printed; the file's covers the extra cells",
              archive.digest("u") == int(run.digests["u"], 16)
              and archive.stored_digest("u") == digest_of_cells(whole, (-1, -1, -1)),
              f"{archive.digest('u'):016x} vs {run.digests['u']}")
        record = archive.record
        reductions = archive.reductions
        check(f"{ranks} rank(s): reductions at every output; the last equal the run record's",
              record is not None and set(reductions) == {0, 3, 6}
              and {k: v["value"] for k, v in record["reductions"].items()} == reductions[6]
              and record["digests"]["u"] == run.digests["u"], f"{reductions}\n{record and record['reductions']}")
        fields[ranks] = [archive.field("u", t) for t in archive.timesteps]
    if len(fields) == 2:
        check("the 1- and 3-rank runs give the same arrays at every output",
              all(np.array_equal(a, b) for a, b in zip(fields[1], fields[3])))

    base = work / "burgers1.tsa"
    try:
        open_run(base).field("v")
        refused = False
    except RunError as error:
        refused = "no variable 'v'" in str(error) and "u" in str(error)
    check("field('v'): RunError naming the variable and the ones there", refused)

    # --- tessera-inspect --png, and the same drawing in-process ---------------------------------------
    # (Each tessera-inspect --png starts a Python with matplotlib: about 2 s.
    # The command line is checked once drawing and twice refusing; the other
    # slices are drawn by quicklook.slice_png in this process.)
    from tessera_archive.quicklook import slice_png
    pictures = {}
    png = work / "last-z.png"
    drawn = inspect(tools, base, "--png", png, "--var", "u")
    pictures["last-z"] = viridis_content(png) if png.exists() else None
    check("--png: exit 0, the title said, a large area of many viridis shades",
          drawn.returncode == 0 and drawn.stdout.startswith(f"wrote {png}: u, timestep 6")
          and pictures["last-z"] and pictures["last-z"]["fraction"] > 0.15
          and pictures["last-z"]["shades"] > 60, f"{pictures['last-z']}\n{drawn.stdout}{drawn.stderr}")
    archive = open_run(base)
    for name, timestep, axis, at in (("initial-z", 0, "z", None), ("last-y", None, "y", 3)):
        png = work / f"{name}.png"
        shown, title = slice_png(archive, "u", png, timestep, axis, at)
        content = pictures[name] = viridis_content(png)
        field = archive.field("u", timestep)
        expected = np.take(field, at if at is not None else field.shape[2] // 2, axis="xyz".index(axis)).T
        check(f"slice_png {name}: the slice of the field it says, a large area of many viridis shades",
              np.array_equal(shown, expected) and content["fraction"] > 0.15 and content["shades"] > 60,
              f"{content} {title}")
    if all(pictures.values()):
        check("--png: the initial state's slice is another picture than the last one's",
              abs(pictures["initial-z"]["mean_shade"] - pictures["last-z"]["mean_shade"]) > 1.0,
              str(pictures))
    for args, why in ((["--var", "v"], "no variable 'v'"), (["--var", "u", "--axis", "w"], "--axis must be")):
        refused = inspect(tools, base, "--png", work / "bad.png", *args)
        check(f"--png {' '.join(map(str, args))}: exit 1 saying {why!r}, no file",
              refused.returncode == 1 and why in refused.stderr and not (work / "bad.png").exists(),
              refused.stdout + refused.stderr)
    for kwargs, why in (({"at": 99}, "--at 99"), ({"timestep": 5}, "no output at timestep 5")):
        try:
            slice_png(archive, "u", work / "bad.png", **kwargs)
            message = None
        except RunError as error:
            message = str(error)
        check(f"slice_png {kwargs}: RunError saying {why!r}, no file",
              message is not None and why in message and not (work / "bad.png").exists(), str(message))
    check.finish()


if __name__ == "__main__":
    main(run_checks)
