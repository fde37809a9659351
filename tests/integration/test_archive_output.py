"""Outputs are the same datasets for any rank count and patch layout, and the
XDMF files are valid XML that reference existing datasets.

usage: test_archive_output.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR WORKDIR
"""
import pathlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from sus_runner import Checks, Sus, parse_common_args

CONFIGURATIONS = [(1, []), (2, []), (4, ["load_balancer.type=round_robin"]), (3, ["grid.level.patches=[3,1,5]"])]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, tools, work = rest[0], pathlib.Path(rest[1]), pathlib.Path(rest[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    sus = Sus(sus_path, mpirun, flags)
    check = Checks()

    runs = []
    for ranks, sets in CONFIGURATIONS:
        base = work / f"np{ranks}_{len(runs)}.tsa"
        run = sus.run(deck, ranks=ranks, sets=[f"output.dir={base}", "output.timestep_interval=4", *sets])
        check(f"{ranks} rank(s) {sets} writes its outputs", run.returncode == 0 and base.is_dir(), run.describe())
        runs.append(base)
    for other in runs[1:]:
        done = subprocess.run([str(tools / "tessera-compare"), "--exact", str(runs[0]), str(other)],
                              capture_output=True, text=True)
        check(f"{other.name} equals {runs[0].name} bitwise", done.returncode == 0, done.stdout + done.stderr)

    # The comparer tells different runs (exit 1) from incomparable ones (exit 2).
    compare = str(tools / "tessera-compare")
    fixed_steps = ["output.timestep_interval=4", "time.max_timesteps=8", "time.max_time=1.0"]
    plain, viscous = work / "plain.tsa", work / "viscous.tsa"
    sus.run(deck, ranks=1, sets=[f"output.dir={plain}", *fixed_steps])
    sus.run(deck, ranks=2, sets=[f"output.dir={viscous}", *fixed_steps, "burgers.viscosity=0.0101"])
    done = subprocess.run([compare, str(plain), str(viscous)], capture_output=True, text=True)
    check("another viscosity compares as different (exit 1) and names the first cell",
          done.returncode == 1 and "different: 'u' at timestep" in done.stdout and "cell [" in done.stdout,
          done.stdout + done.stderr)
    loose = subprocess.run([compare, "--abs", "10", str(plain), str(viscous)], capture_output=True, text=True)
    check("a wide enough tolerance makes them equal (exit 0)", loose.returncode == 0, loose.stdout + loose.stderr)
    coarse = work / "coarse.tsa"
    sus.run(deck, ranks=1, sets=[f"output.dir={coarse}", "output.timestep_interval=4", "grid.level.resolution=[16,16,16]"])
    done = subprocess.run([compare, str(runs[0]), str(coarse)], capture_output=True, text=True)
    check("another grid is not comparable (exit 2)", done.returncode == 2 and "not comparable" in done.stdout,
          done.stdout + done.stderr)

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
    missing = subprocess.run([inspect, str(work / "nothing.tsa")], capture_output=True, text=True)
    check("tessera-inspect on a missing run names it (exit 1)",
          missing.returncode == 1 and "nothing.tsa" in missing.stderr, missing.stderr)

    run_dir = runs[0].resolve()
    xmf_files = sorted(run_dir.glob("*.xmf"))
    check("an XDMF file per output plus run.xmf", len(xmf_files) >= 3 and (run_dir / "run.xmf").exists())
    for xmf in xmf_files:
        try:
            root = ET.parse(xmf).getroot()
        except ET.ParseError as error:
            check(f"{xmf.name} is valid XML", False, str(error))
            continue
        items = [item.text.strip() for item in root.iter("DataItem") if item.get("Format") == "HDF"]
        ok = bool(items)
        for item in items:
            file, dataset = item.split(":", 1)
            listing = subprocess.run(["h5ls", str(run_dir / file)], capture_output=True, text=True)
            ok = ok and (run_dir / file).exists() and any(line.split()[0] == dataset.strip("/")
                                                        for line in listing.stdout.splitlines() if line.split())
        check(f"{xmf.name} is valid XML and its {len(items)} dataset(s) exist", ok)

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
          and "u" in unknown.stderr, unknown.describe())

    check.finish()


if __name__ == "__main__":
    main()
