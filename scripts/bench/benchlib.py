"""What the benchmark scripts share: where things are, how to start MPI
runs, the command-line options every benchmark takes, and how results are
written and charted."""
import argparse
import json
import os
import pathlib
import subprocess
import sys

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


def run_sus(build, ranks, options, sets, deck, bind="core", quiet=True, timeout=1200):
    """sus on `ranks` ranks with one thread each, bound as `bind` says
    (mpirun), with `options` and the `--set` assignments `sets`, on `deck`
    (`--quiet` unless `quiet` is false); the finished process. Exits naming
    the command when sus fails."""
    cmd = mpirun(ranks, bind=bind) + [str(build / "StandAlone" / "sus"), *(["--quiet"] if quiet else []),
                                      "--nthreads", "1", *options]
    for assignment in sets:
        cmd += ["--set", assignment]
    cmd.append(str(deck))
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        sys.exit(f"sus failed: {' '.join(cmd)}\n{done.stdout}\n{done.stderr}")
    return done


def run_sus_one_core(build, ranks, options, sets, deck):
    """run_sus on ranks of one core each; its stdout."""
    return run_sus(build, ranks, options, sets, deck).stdout


def run_sus_recorded(build, ranks, options, sets, deck, scratch, bind="core", quiet=True):
    """run_sus writing its run record (--record) into the folder `scratch`,
    removed again: (the record as a dict, the finished process)."""
    record = os.path.join(scratch, "record.json")
    done = run_sus(build, ranks, [*options, "--record", record], sets, deck, bind, quiet)
    with open(record) as f:
        result = json.load(f)
    os.remove(record)
    return result, done


def grouped_bar_chart(path, groups, series, ylabel, title, figsize=(8, 4)):
    """A PNG of bars in `groups` (tick labels), one bar per (label, values)
    of `series` in each group; False when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return False
    fig, ax = plt.subplots(figsize=figsize)
    for index, (label, values) in enumerate(series):
        ax.bar(bar_positions(len(groups), len(series), index, 0.8 / len(series)), values,
               0.8 / len(series), label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def write_results(out, name, summary, chart):
    """Writes NAME.json and, when chart(summary, path) draws one, NAME.png
    into `out`, and says what it wrote."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_text(json.dumps(summary, indent=2) + "\n")
    written = [out / f"{name}.json"]
    if chart(summary, out / f"{name}.png"):
        written.append(out / f"{name}.png")
    print("wrote " + " and ".join(str(w) for w in written))
