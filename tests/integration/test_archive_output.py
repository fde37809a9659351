"""Outputs are the same datasets for any rank count and patch layout, the
comparer's tolerances mean what the docs say, and the XDMF files describe the
grid of the deck (origin, spacing, node and cell counts) at the times of the
index, pointing at datasets that exist.

usage: test_archive_output.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

from sus_runner import load_index, Checks, Sus, parse_common_args, fresh_directory

CONFIGURATIONS = [(1, []), (2, []), (4, ["load_balancer.type=round_robin"]), (3, ["grid.level.patches=[3,1,5]"])]

# A grid with a different cell count, extent, origin and extra-cell width on
# every axis, so that a swapped axis or a dropped extra cell shows in the XDMF.
ANISOTROPIC = {"lower": [0.0, -0.5, 0.25], "upper": [1.0, 1.5, 1.25], "resolution": [12, 9, 6],
               "extra_cells": [1, 2, 1]}


def h5_dimensions(path, dataset):
    """The dimensions h5ls reports for a dataset, or None."""
    listing = subprocess.run(["h5ls", str(path)], capture_output=True, text=True)
    for line in listing.stdout.splitlines():
        fields = line.split(None, 1)
        if len(fields) == 2 and fields[0] == dataset:
            found = re.search(r"Dataset \{([0-9, ]+)\}", fields[1])
            return [int(n) for n in found.group(1).split(",")] if found else None
    return None


def close(a, b):
    return all(abs(x - y) <= 1e-12 * max(1.0, abs(y)) for x, y in zip(a, b)) and len(a) == len(b)


def check_lines(check, inspect, run_dir, grid):
    """tessera-inspect --line along x, y and z (and x by default) through one cell of a grid
    that differs on every axis: each line has the axis' cells and extra cells, in order, at
    their positions, and the three agree on the value of the cell they share."""
    cell = (5, 3, 2)
    others = {"x": (1, 2), "y": (0, 2), "z": (0, 1)}
    spacing = [(u - l) / r for l, u, r in zip(grid["lower"], grid["upper"], grid["resolution"])]
    shared = {}
    outputs = {}
    for axis, extra in (("x", []), ("y", []), ("z", []), ("x", None)):
        a = "xyz".index(axis)
        at = ",".join(str(cell[o]) for o in others[axis])
        args = ["--line", "u", "--timestep", "4", "--at", at] + (["--axis", axis] if extra is not None else [])
        done = subprocess.run([inspect, str(run_dir), *args], capture_output=True, text=True, timeout=60)
        rows = [line.split() for line in done.stdout.splitlines() if line.strip() and not line.startswith("#")]
        e, n = grid["extra_cells"][a], grid["resolution"][a]
        indices = [int(row[0]) for row in rows if len(row) == 3]
        positions = [float(row[1]) for row in rows if len(row) == 3]
        label = f"tessera-inspect {' '.join(args)}"
        check(f"{label}: {n} + 2 x {e} cells along {axis}, indices {-e}..{n + e - 1} at lower + (i + 1/2) dx",
              done.returncode == 0 and f"along {axis}" in done.stdout and len(rows) == n + 2 * e
              and indices == list(range(-e, n + e))
              and close(positions, [grid["lower"][a] + (i + 0.5) * spacing[a] for i in indices]),
              done.stdout + done.stderr)
        values = {int(row[0]): row[2] for row in rows if len(row) == 3}
        shared[axis if extra is not None else "default"] = values.get(cell[a])
        outputs[axis if extra is not None else "default"] = done.stdout
        check(f"{label}: the values vary along the line", len(set(values.values())) > n // 2, done.stdout)
    check(f"the lines along x, y and z give cell {cell} the same value",
          shared["x"] is not None and shared["x"] == shared["y"] == shared["z"], str(shared))
    check("--line without --axis is the line along x", outputs["default"] == outputs["x"], outputs["default"])
    bad = subprocess.run([inspect, str(run_dir), "--line", "u", "--timestep", "4", "--axis", "w"],
                         capture_output=True, text=True, timeout=60)
    check("tessera-inspect --axis w: exit 1 naming x, y or z, nothing on stdout",
          bad.returncode == 1 and "--axis must be x, y or z" in bad.stderr and not bad.stdout.strip(),
          bad.stdout + bad.stderr)


def check_xdmf(check, run_dir, grid, label):
    """run.xmf and every tNNNNN.xmf against index.yaml and the grid of the deck."""
    index = load_index(run_dir / "index.yaml")
    outputs = index["outputs"]
    cells = [r + 2 * e for r, e in zip(grid["resolution"], grid["extra_cells"])]  # x, y, z
    spacing = [(u - l) / r for l, u, r in zip(grid["lower"], grid["upper"], grid["resolution"])]
    origin = [l - e * h for l, e, h in zip(grid["lower"], grid["extra_cells"], spacing)]
    # XDMF lists z first (the datasets are (z, y, x)); a CoRectMesh counts nodes.
    want_nodes = [n + 1 for n in reversed(cells)]
    want_cells = list(reversed(cells))
    want_origin, want_spacing = list(reversed(origin)), list(reversed(spacing))

    def numbers(text, kind=float):
        return [kind(v) for v in text.split()]

    def check_grid(name, element, entry):
        timestep, time, _, file = entry
        problems = []
        if element.get("Name") != f"timestep {timestep}" or element.get("GridType") != "Uniform":
            problems.append(f"grid {element.attrib} is not 'timestep {timestep}', Uniform")
        times = element.findall("Time")
        if len(times) != 1 or float(times[0].get("Value")) != time:
            problems.append(f"time {[t.get('Value') for t in times]} != index time {time!r}")
        topology = element.find("Topology")
        if (topology is None or topology.get("TopologyType") != "3DCoRectMesh"
                or numbers(topology.get("Dimensions", ""), int) != want_nodes):
            problems.append(f"topology {None if topology is None else topology.attrib}, want nodes {want_nodes}")
        geometry = element.find("Geometry")
        items = [] if geometry is None else geometry.findall("DataItem")
        if (geometry is None or geometry.get("GeometryType") != "ORIGIN_DXDYDZ" or len(items) != 2
                or not close(numbers(items[0].text), want_origin) or not close(numbers(items[1].text), want_spacing)):
            problems.append(f"geometry {[i.text for i in items]}, want origin {want_origin} spacing {want_spacing}")
        attributes = element.findall("Attribute")
        if [a.get("Name") for a in attributes] != ["u"]:
            problems.append(f"attributes {[a.get('Name') for a in attributes]}, want ['u']")
        for attribute in attributes:
            item = attribute.find("DataItem")
            if (attribute.get("Center") != "Cell" or item is None or item.get("Format") != "HDF"
                    or numbers(item.get("Dimensions", ""), int) != want_cells
                    or item.text.strip() != f"{file}:/{attribute.get('Name')}"
                    or h5_dimensions(run_dir / file, attribute.get("Name")) != want_cells):
                problems.append(f"attribute {attribute.get('Name')}: {None if item is None else item.attrib} "
                                f"{None if item is None else item.text!r}, dataset "
                                f"{h5_dimensions(run_dir / file, attribute.get('Name'))}, want {want_cells} in {file}")
        check(f"{label}: {name} '{element.get('Name')}' has the deck's grid, the index's time and its dataset",
              not problems, "\n".join(problems))

    check(f"{label}: the index lists outputs", len(outputs) >= 3, str(index))
    try:
        run = ET.parse(run_dir / "run.xmf").getroot()
    except (ET.ParseError, OSError) as error:
        check(f"{label}: run.xmf is valid XML", False, str(error))
        return
    collections = run.findall("Domain/Grid")
    collection = collections[0] if len(collections) == 1 else None
    check(f"{label}: run.xmf is one temporal collection",
          run.tag == "Xdmf" and collection is not None and collection.get("GridType") == "Collection"
          and collection.get("CollectionType") == "Temporal", ET.tostring(run, encoding="unicode")[:400])
    grids = collection.findall("Grid") if collection is not None else []
    check(f"{label}: run.xmf lists the index's outputs in order (timesteps and times equal)",
          [(g.get("Name"), float(g.find("Time").get("Value"))) for g in grids]
          == [(f"timestep {t}", time) for t, time, _, _ in outputs],
          f"{[(g.get('Name'), g.find('Time').get('Value')) for g in grids]} vs {outputs}")
    for element, entry in zip(grids, outputs):
        check_grid("run.xmf", element, entry)

    singles = sorted(p.name for p in run_dir.glob("t*.xmf"))
    check(f"{label}: one tNNNNN.xmf per output", singles == [f"{pathlib.Path(f).stem}.xmf" for *_, f in outputs],
          f"{singles} vs {outputs}")
    for entry in outputs:
        path = run_dir / f"{pathlib.Path(entry[3]).stem}.xmf"
        try:
            grids = ET.parse(path).getroot().findall("Domain/Grid")
        except (ET.ParseError, OSError) as error:
            check(f"{label}: {path.name} is valid XML", False, str(error))
            continue
        check(f"{label}: {path.name} holds one grid", len(grids) == 1, str(grids))
        if grids:
            check_grid(path.name, grids[0], entry)


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, tools, work = rest[0], pathlib.Path(rest[1]), pathlib.Path(rest[2])
    with fresh_directory(work):
        run_checks(Sus(sus_path, mpirun, flags), deck, tools, work)



def mix64(v):
    """Core/Grid/Variables/FieldDigest.h's mix64 (the splitmix64 finaliser)."""
    mask = (1 << 64) - 1
    v = (v + 0x9e3779b97f4a7c15) & mask
    v = ((v ^ (v >> 30)) * 0xbf58476d1ce4e5b9) & mask
    v = ((v ^ (v >> 27)) * 0x94d049bb133111eb) & mask
    return v ^ (v >> 31)


def change_a_reduction(path):
    """Finds a positive double in the file whose mix64 is stored too (a
    reduction and its digest), halves it and rewrites the digest; returns
    the new value, or None."""
    data = bytearray(path.read_bytes())
    words = {}
    for at in range(len(data) - 7):
        words.setdefault(int.from_bytes(data[at:at + 8], "little"), at)
    for bits, at in words.items():
        value = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if not (1e-12 < value < 1e6):
            continue
        digest_at = words.get(mix64(bits))
        if digest_at is None:
            continue
        new_bits = struct.unpack("<Q", struct.pack("<d", value * 0.5))[0]
        data[at:at + 8] = new_bits.to_bytes(8, "little")
        data[digest_at:digest_at + 8] = mix64(new_bits).to_bytes(8, "little")
        path.write_bytes(bytes(data))
        return value * 0.5
    return None

def run_checks(sus, deck, tools, work):
    check = Checks()
    compare = str(tools / "tessera-compare")

    def run_compare(*args):
        done = subprocess.run([compare, *map(str, args)], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    runs = []
    for ranks, sets in CONFIGURATIONS:
        base = work / f"np{ranks}_{len(runs)}.tsa"
        run = sus.run(deck, ranks=ranks, sets=[f"output.dir={base}", "output.timestep_interval=4", *sets])
        check(f"{ranks} rank(s) {sets} writes its outputs", run.returncode == 0 and base.is_dir(), run.describe())
        runs.append(base)
    first = load_index(runs[0] / "index.yaml")["outputs"] if (runs[0] / "index.yaml").exists() else []
    check("outputs every 4 timesteps, plus the initial and the last (timesteps 0, 4, 8, 9)",
          [t for t, *_ in first] == [0, 4, 8, 9], str(first))
    for other in runs[1:]:
        code, text = run_compare("--exact", runs[0], other)
        check(f"{other.name} equals {runs[0].name} bitwise", code == 0 and "compared bitwise" in text, text)
        reductions = re.search(r"and (\d+) reductions compared", text)
        check(f"{other.name}: the reduction variables are compared too",
              reductions is not None and int(reductions.group(1)) > 0, text)
        code, text = run_compare("--abs", "0", "--rel", "0", runs[0], other)
        check(f"{other.name} equals {runs[0].name} value by value with zero tolerance", code == 0, text)

    # The comparer tells different runs (exit 1) from incomparable ones (exit 2),
    # and a difference counts only when it exceeds both tolerances.
    fixed_steps = ["output.timestep_interval=4", "time.max_timesteps=8", "time.max_time=1.0"]
    plain, viscous = work / "plain.tsa", work / "viscous.tsa"
    run = sus.run(deck, ranks=1, sets=[f"output.dir={plain}", *fixed_steps])
    check("the run with viscosity 0.01 exits 0", run.returncode == 0, run.describe())
    run = sus.run(deck, ranks=2, sets=[f"output.dir={viscous}", *fixed_steps, "burgers.viscosity=0.0101"])
    check("the run with viscosity 0.0101 exits 0", run.returncode == 0, run.describe())
    code, text = run_compare(plain, viscous)
    found = re.search(r"different: 'u' at timestep \d+ \(time \S+\), cell \[-?\d+, -?\d+, -?\d+\]: "
                      r"(\S+) vs (\S+) \(difference (\S+)\)", text)
    check("another viscosity compares as different (exit 1) and names the first cell and both values",
          code == 1 and found is not None, text)
    if found:
        a, b, difference = (float(v) for v in found.groups())
        check("the reported difference is |a - b| and exceeds the default tolerances (1e-9, 1e-6)",
              abs(abs(a - b) - difference) <= 1e-15 and difference > 1e-9 and difference > 1e-6 * max(abs(a), abs(b)),
              text)
    code, text = run_compare("--abs", "1e-3", "--rel", "1e-2", plain, viscous)
    check("--abs 1e-3 --rel 1e-2 makes them equal (exit 0)", code == 0 and "equal: 3 outputs" in text, text)
    code, text = run_compare("--abs", "1e-3", plain, viscous)
    check("--abs 1e-3 alone (default --rel) keeps them different (exit 1)", code == 1 and "different" in text, text)
    code, text = run_compare("--abs", "0", "--rel", "1e-2", plain, viscous)
    check("--rel 1e-2 alone (--abs 0) keeps them different (exit 1)", code == 1 and "different" in text, text)
    code, text = run_compare("--exact", plain, viscous)
    check("--exact finds them different (exit 1)", code == 1 and "different" in text, text)

    # A reduction that differs while every cell agrees: one value of the
    # last output of a copy, changed together with its checksum (the
    # stored digest is mix64 of the value's bits).
    tampered = work / "tampered.tsa"
    shutil.copytree(plain.resolve(), tampered)
    last = tampered / load_index(tampered / "index.yaml")["outputs"][-1][3]
    changed = change_a_reduction(last)
    check("a reduction value and its checksum are found in the output", changed is not None)
    if changed is not None:
        code, text = run_compare("--exact", plain, tampered)
        check("a changed reduction compares as different (exit 1) and is named",
              code == 1 and re.search(r"different: reduction '[\w.]+' at timestep 8: ", text), text)
    shutil.rmtree(tampered, ignore_errors=True)
    # A reduction only one run holds at a timestep is listed, not compared:
    # the copy's stable timestep renamed in place (same length).
    renamed = work / "renamed.tsa"
    shutil.copytree(plain.resolve(), renamed)
    last = renamed / load_index(renamed / "index.yaml")["outputs"][-1][3]
    data = last.read_bytes()
    check("the stable timestep's name is in the last output once",
          data.count(b"burgers.stableDelT") == 1)
    last.write_bytes(data.replace(b"burgers.stableDelT", b"burgers.stableDelX"))
    code, text = run_compare("--exact", plain, renamed)
    check("a reduction in one run only is listed as not compared, on either side (exit 0)",
          code == 0 and "not compared: reduction 'burgers.stableDelT' at timestep 8 (first run only)" in text
          and "not compared: reduction 'burgers.stableDelX' at timestep 8 (second run only)" in text, text)
    shutil.rmtree(renamed, ignore_errors=True)

    coarse = work / "coarse.tsa"
    run = sus.run(deck, ranks=1, sets=[f"output.dir={coarse}", "output.timestep_interval=4",
                                      "grid.level.resolution=[16,16,16]"])
    check("the 16^3 run exits 0", run.returncode == 0, run.describe())
    code, text = run_compare(runs[0], coarse)
    check("another grid is not comparable (exit 2)", code == 2 and "not comparable" in text, text)
    # Runs with different output lists compare on the timesteps they share,
    # and say which; with none in common they are not comparable.
    code, text = run_compare("--exact", plain, runs[0])
    check("runs sharing timesteps 0, 4, 8 compare on those, saying so (exit 0)",
          code == 0 and "comparing timesteps 0, 4, 8; only in the second: 9" in text
          and "equal: 3 outputs" in text, text)
    offset = work / "offset.tsa"
    run = sus.run(deck, ranks=1, sets=[f"output.dir={offset}", "output.timestep_interval=3",
                                      "output.output_initial=false", "output.output_last=false",
                                      "time.max_timesteps=8", "time.max_time=1.0"])
    check("the run writing timesteps 3 and 6 exits 0", run.returncode == 0, run.describe())
    code, text = run_compare(plain, offset)
    check("runs sharing no timestep are not comparable (exit 2) and list both",
          code == 2 and "share no output timestep (first: 0, 4, 8; second: 3, 6)" in text, text)

    # The inspector lists, summarises and extracts.
    inspect = str(tools / "tessera-inspect")
    listing = subprocess.run([inspect, str(runs[0])], capture_output=True, text=True)
    check("tessera-inspect lists the outputs and variables",
          listing.returncode == 0 and "timestep      4" in listing.stdout and "variables: u" in listing.stdout,
          listing.stdout + listing.stderr)
    stats = subprocess.run([inspect, str(runs[0]), "--stats", "--timestep", "4"], capture_output=True, text=True)
    rows = [line.split() for line in stats.stdout.splitlines()[1:] if line.strip()]
    check("tessera-inspect --stats gives min <= mean <= max for u",
          stats.returncode == 0 and len(rows) == 1 and float(rows[0][3]) <= float(rows[0][5]) <= float(rows[0][4]),
          stats.stdout + stats.stderr)
    line = subprocess.run([inspect, str(runs[0]), "--line", "u", "--timestep", "4", "--axis", "y", "--at", "3,5"],
                          capture_output=True, text=True)
    values = [l for l in line.stdout.splitlines() if not l.startswith("#")]
    check("tessera-inspect --line prints every cell of the line (32 + 2 extra)",
          line.returncode == 0 and len(values) == 34, line.stdout + line.stderr)
    # What was asked for must exist: an error (exit 1) naming it, and no
    # half-printed table or line before it.
    for args, expect in ((["--stats", "--var", "v"], "no variable 'v'"),
                         (["--stats", "--timestep", "3"], "no output at timestep 3"),
                         (["--line", "u", "--timestep", "4", "--at", "100,100"], "lies outside")):
        bad = subprocess.run([inspect, str(runs[0]), *args], capture_output=True, text=True)
        check(f"tessera-inspect {' '.join(args)}: exit 1, '{expect}', nothing on stdout",
              bad.returncode == 1 and expect in bad.stderr and not bad.stdout.strip(),
              bad.stdout + bad.stderr)
    for option in ("--abs", "--rel"):
        code, text = run_compare(option, "-1", runs[0], runs[0])
        check(f"tessera-compare {option} -1 is refused (exit 2) naming the option",
              code == 2 and option in text and "zero or more" in text, text)
    missing = subprocess.run([inspect, str(work / "nothing.tsa")], capture_output=True, text=True)
    check("tessera-inspect on a missing run names it (exit 1)",
          missing.returncode == 1 and "nothing.tsa" in missing.stderr, missing.stderr)

    # XDMF: the example deck's grid, and a grid that differs on every axis (2 ranks).
    deck_grid = {"lower": [0.0] * 3, "upper": [1.0] * 3, "resolution": [32] * 3, "extra_cells": [1] * 3}
    check_xdmf(check, runs[0].resolve(), deck_grid, "example deck")
    skewed = work / "skewed.tsa"
    run = sus.run(deck, ranks=2, sets=[f"output.dir={skewed}", "output.timestep_interval=2", "time.max_time=1.0",
                                      "time.max_timesteps=5", "grid.level.patches=[2,1,2]",
                                      *(f"grid.level.{key}={value}" for key, value in ANISOTROPIC.items())])
    check("the run on a grid that differs on every axis exits 0", run.returncode == 0, run.describe())
    if run.returncode == 0:
        check_xdmf(check, skewed.resolve(), ANISOTROPIC, "skewed grid")
        check_lines(check, inspect, skewed.resolve(), ANISOTROPIC)

    # A second run with the same output.dir gets the next version; the link follows it.
    again = sus.run(deck, ranks=1, sets=[f"output.dir={runs[0]}", "output.timestep_interval=4"])
    check("a second run never overwrites the first",
          again.returncode == 0 and (work / "np1_0.tsa.001").is_dir() and (work / "np1_0.tsa.000").is_dir()
          and runs[0].resolve().name == "np1_0.tsa.001", again.describe())

    bad = sus.run(deck, ranks=1, sets=[f"output.dir={work}/np1_0.tsa.000/index.yaml/inside"])
    check("an unwritable output directory is a clear error, exit 2",
          bad.returncode == 2 and "cannot create" in bad.stderr, bad.describe())
    unknown = sus.run(deck, ranks=1, sets=[f"output.dir={work}/x.tsa", "output.save=[u,v]"])
    check("an unknown saved variable is a deck error naming the known ones",
          unknown.returncode == 1 and "output.save" in unknown.stderr and "unknown variable 'v'" in unknown.stderr
          and "(cell variables: u)" in unknown.stderr, unknown.describe())

    check.finish()


if __name__ == "__main__":
    main()
