"""sus options: --version, --help, --validate, --max-timesteps, --emit-taskgraph, --set, exit codes, and
that every command-line error names what is wrong (the option, the file, the value).

usage: test_sus_cli.py --sus S --mpirun M [--mpirun-flag F]... DECK WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import pathlib
import shutil
import sys

from sus_runner import Checks, Sus, parse_common_args

DOCUMENTED_OPTIONS = ["--validate", "--max-timesteps", "--emit-taskgraph", "--scheduler", "--nthreads", "--threads",
                      "--stats", "--trace", "--restart", "--checkpoint", "--log-level", "--set", "--quiet",
                      "--version", "--help"]


def main():
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, workdir = rest[0], pathlib.Path(rest[1])
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    try:
        run_checks(Sus(sus_path, mpirun, flags), deck, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run_checks(sus, deck, workdir):
    check = Checks()

    def expect_error(name, args, *texts):
        """sus ARGS exits 1, prints nothing on stdout, and its stderr contains every one of texts."""
        run = sus.run_serial(args)
        missing = [text for text in texts if text not in run.stderr]
        check(f"{name} (exit 1, stderr names {', '.join(repr(t) for t in texts)})",
              run.returncode == 1 and not missing and not run.stdout.strip() and not run.digests,
              f"missing {missing}\n{run.describe()}")

    run = sus.run_serial(["--version"])
    check("--version prints the version and exits 0",
          run.returncode == 0 and "Tessera" in run.stdout and any(c.isdigit() for c in run.stdout), run.describe())
    run = sus.run_serial(["--help"])
    missing = [option for option in DOCUMENTED_OPTIONS if option not in run.stdout]
    check("--help lists every documented option", run.returncode == 0 and not missing,
          f"missing {missing}\n{run.describe()}")

    expect_error("no deck is a usage error", [], "deck", "required")
    expect_error("an unknown option is a usage error", ["--no-such-option", deck], "--no-such-option")
    missing_deck = str(workdir / "missing.yaml")
    expect_error("a missing deck file names the file", [missing_deck], missing_deck, "does not exist")
    expect_error("--max-timesteps takes no negative number", ["--max-timesteps", "-1", deck], "--max-timesteps")
    expect_error("--nthreads takes no 0", ["--nthreads", "0", deck], "--nthreads")
    expect_error("--scheduler takes host, sync or async only", ["--scheduler", "fast", deck], "--scheduler", "fast")
    expect_error("--log-level takes a known level only", ["--log-level", "loud", deck], "--log-level", "loud")
    expect_error("--set without '=' names the assignment", ["--set", "novalue", deck], "--set", "'novalue'")
    expect_error("--checkpoint needs --restart", ["--checkpoint", "4", deck], "--checkpoint", "--restart")
    expect_error("--restart with a deck is refused", ["--restart", str(workdir), deck], "--restart", "no deck")
    no_dir = str(workdir / "no-such-run.tsa")
    expect_error("--restart of a missing directory names it", ["--restart", no_dir], "--restart", no_dir)
    expect_error("--restart of a directory that holds no run says so", ["--restart", str(workdir)],
                 "sus: error:", str(workdir), "is not a Tessera run directory")

    region = "amr.regions.centre={level: 1, low: [4, 4, 4], high: [12, 12, 12]}"
    expect_error("a refinement ratio other than 2 or 4 names the key",
                 ["--set", "amr.refinement_ratio=3", "--set", region, deck],
                 "amr.refinement_ratio", "must be 2 or 4")
    expect_error("a refined region that is not nested names the region",
                 ["--set", "amr.max_levels=3", "--set", region, "--set",
                  "amr.regions.inner={level: 2, low: [0, 0, 0], high: [8, 8, 8]}", deck],
                 "amr.regions.inner.low", "not properly nested in level 1")

    run = sus.run_serial(["--validate", deck])
    check("--validate accepts the example deck", run.returncode == 0 and run.stdout.strip() == f"{deck}: valid"
          and not run.digests, run.describe())
    expect_error("--validate rejects an out-of-range override, naming the file, the key and the override",
                 ["--validate", "--set", "grid.level.resolution=[0,4,4]", deck],
                 f"sus: error: {deck}: grid.level.resolution: out of range",
                 "(from override grid.level.resolution=[0,4,4])")

    run = sus.run(deck, ranks=2, options=["--max-timesteps", "3"])
    check("--max-timesteps stops after 3 steps", run.returncode == 0 and run.timesteps == 3 and bool(run.digests),
          run.describe())

    dot = workdir / "taskgraph.dot"
    run = sus.run(deck, ranks=2, options=["--max-timesteps", "1", "--emit-taskgraph", str(dot)])
    text = dot.read_text() if dot.exists() else ""
    check("--emit-taskgraph writes a DOT graph with both ranks and messages",
          run.returncode == 0 and text.startswith("digraph") and "cluster_rank1" in text
          and "style=dashed" in text and "Burgers::timeAdvance" in text, run.describe())

    check.finish()


if __name__ == "__main__":
    main()
