"""Outputs are the same datasets for any rank count and patch layout, and the
XDMF files are valid XML that reference existing datasets.

usage: test_archive_output.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR WORKDIR
"""
import pathlib
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

from sus_runner import Sus, parse_common_args

CONFIGURATIONS = [(1, []), (2, []), (4, ["load_balancer.type=round_robin"]), (3, ["grid.level.patches=[3,1,5]"])]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, tools, work = rest[0], pathlib.Path(rest[1]), pathlib.Path(rest[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    sus = Sus(sus_path, mpirun, flags)
    checks = []

    def check(name, ok, detail=""):
        checks.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
        if not ok and detail:
            print(detail)

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

    print(f"{sum(checks)} passed, {len(checks) - sum(checks)} failed")
    sys.exit(0 if all(checks) else 1)


if __name__ == "__main__":
    main()
