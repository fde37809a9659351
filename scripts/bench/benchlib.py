"""What the benchmark scripts share: where things are, how to start MPI
runs, the command-line options every benchmark takes, and how results are
written and charted."""
import argparse
import json
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
LARGE_DECK = ROOT / "inputs" / "Burgers" / "burgers_large.yaml"


def mpirun(ranks, bind="none"):
    """mpirun for `ranks` ranks bound to `bind` ("core": each rank and its
    threads on one core; "none": free to float)."""
    command = ["mpirun", "--oversubscribe", "--bind-to", bind, "-n", str(ranks)]
    if os.geteuid() == 0:
        command.insert(1, "--allow-run-as-root")
    return command


def require_programs(build, programs):
    """Exits naming the build command when one of `programs` is missing from
    build/StandAlone: the benchmarks' own programs are not in the default
    build (`cmake --build BUILD --target bench-tools` makes them all)."""
    missing = [p for p in programs if not (pathlib.Path(build) / "StandAlone" / p).exists()]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not found in {build}/StandAlone: build them first "
                         f"(cmake --build {build} --target {' '.join(missing)}, or --target bench-tools "
                         "for every benchmark program)")


def parser(doc, runs=5):
    """An argument parser with --build, --deck, --runs and --out."""
    result = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    result.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    result.add_argument("--deck", type=pathlib.Path, default=LARGE_DECK)
    result.add_argument("--runs", type=int, default=runs)
    result.add_argument("--out", type=pathlib.Path, default=ROOT / "bench-results")
    return result


def pyplot():
    """matplotlib.pyplot on the file-only backend, or None (with a message)
    when matplotlib is missing: the benchmark's numbers do not need it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found (Debian: apt-get install python3-matplotlib): no chart written")
        return None
    return plt


def bar_positions(groups, series, index, width):
    """The x of series `index` (of `series`) in each of `groups` bar groups,
    side by side around the group's tick."""
    return [g + (index - (series - 1) / 2) * width for g in range(groups)]


def write_results(out, name, summary, chart):
    """Writes NAME.json and, when chart(summary, path) draws one, NAME.png
    into `out`, and says what it wrote."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2) + "\n")
    written = [out / f"{name}.json"]
    if chart(summary, out / f"{name}.png"):
        written.append(out / f"{name}.png")
    print("wrote " + " and ".join(str(w) for w in written))
