"""The GEMM's block variables in the archive (docs/archiver.md, "Block
variables"): outputs and checkpoints hold A, B and C as whole matrices that
h5py reads (python/tessera_archive) with the digests sus prints; restarts
from a checkpoint end bitwise on the straight run's C on another rank count
and processor grid (2 -> 3, 4 -> 1); tessera-inspect lists and summarises
them and draws C; tessera-compare compares them; a restart whose m changed
is refused naming the variable and both shapes, and writes nothing.

usage: test_gemm_archive.py --sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR PYTHON_DIR WORKDIR

WORKDIR is emptied first and removed at the end.
"""
import re

from archive_tools import main, tool, viridis_content
from sus_runner import Checks

M, N, K = 60, 50, 70
# Integer-valued A, B and C_0 (the default): every product and sum is exact,
# so the bits do not depend on the processor grid, and numpy's are the same.
SHAPE = [f"gemm.m={M}", f"gemm.n={N}", f"gemm.k={K}", "gemm.alpha=1.5",
         "gemm.beta=0.5", "gemm.max_idle_ranks=0", "time.max_timesteps=4"]
ARCHIVE = ["output.timestep_interval=1", "checkpoint.timestep_interval=2", "checkpoint.cycle=2"]


def run_checks(sus, deck, tools, work):
    from tessera_archive import digest_of_matrix, open_run
    import numpy as np

    check = Checks()
    straight = {}
    for ranks in (2, 4):
        base = work / f"straight{ranks}.tsa"
        run = sus.run(deck, ranks, [*SHAPE, *ARCHIVE, f"output.dir={base}"])
        straight[ranks] = (base, run)
        check(f"{ranks} ranks with outputs and checkpoints: exit 0, digests of A, B and C",
              run.returncode == 0 and {"A", "B", "C"} <= set(run.digests), run.describe())
    base, run = straight[2]
    if run.returncode != 0:
        return check.finish()
    check("the processor grid and the digests do not depend on the rank count (2 and 4)",
          straight[4][1].digests == run.digests, f"{straight[4][1].digests} vs {run.digests}")

    # --- h5py reads the global matrices ------------------------------------------------------------
    archive = open_run(base)
    shapes = {name: archive.field(name).shape for name in ("A", "B", "C")}
    check("h5py: A, B and C are whole matrices (m x k, k x n, m x n), whatever the grid",
          shapes == {"A": (M, K), "B": (K, N), "C": (M, N)} and archive.variables == ["A", "B", "C"],
          f"{shapes}, variables {archive.variables}")
    c = archive.field("C")
    check("h5py: C of the last output has the digest sus printed, and the file's",
          digest_of_matrix(c) == int(run.digests["C"], 16) == archive.stored_digest("C"),
          f"{digest_of_matrix(c):016x} vs {run.digests['C']} (file {archive.stored_digest('C'):016x})")
    a, b, c0 = archive.field("A", 0), archive.field("B", 0), archive.field("C", 0)
    expected = c0
    for _ in range(4):
        expected = 1.5 * (a @ b) + 0.5 * expected
    check("h5py: C of the last output is C_4 = 1.5 A B + 0.5 C_3 from C_0 (numpy, exactly)",
          np.array_equal(c, expected), f"max difference {np.abs(c - expected).max()}")
    index = archive.index
    listed = {v["name"]: (v["kind"], v.get("shape")) for v in index.get("output_variables", [])}
    check("index.yaml lists the block variables with their shapes, for outputs and checkpoints",
          listed == {"A": ("block", [M, K]), "B": ("block", [K, N]), "C": ("block", [M, N])}
          and [v["name"] for v in index.get("checkpoint_variables", [])] == ["A", "B", "C"],
          str(index))
    record = archive.record
    check("the run record (result.json) has the digests of A, B and C",
          record is not None and all(record["digests"].get(n) == run.digests[n] for n in "ABC"),
          str(record and record.get("digests")))

    # --- tessera-inspect ------------------------------------------------------------------------------
    listing = tool(tools, "tessera-inspect", base)
    check("tessera-inspect lists the block variables with their shapes",
          listing.returncode == 0
          and f"block variables: A ({M} x {K}) B ({K} x {N}) C ({M} x {N})" in listing.stdout,
          listing.stdout + listing.stderr)
    stats = tool(tools, "tessera-inspect", base, "--stats", "--var", "C", "--timestep", 4)
    row = re.search(r"^\s+4\s+\S+\s+C\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", stats.stdout, re.M)
    numbers = [float(x) for x in row.groups()] if row else []
    want = [c.min(), c.max(), c.mean(), np.sqrt((c * c).mean())]
    check("tessera-inspect --stats: min, max, mean and RMS of C equal numpy's (9 digits)",
          stats.returncode == 0 and numbers
          and all(abs(x - y) <= 1e-8 * max(1.0, abs(y)) for x, y in zip(numbers, want)),
          f"{numbers} vs {want}\n{stats.stdout}{stats.stderr}")
    line = tool(tools, "tessera-inspect", base, "--line", "C", "--timestep", 4)
    check("tessera-inspect --line C: exit 1, saying it reads cell variables",
          line.returncode == 1 and "is a block variable" in line.stderr, line.stderr)

    # --- restarts on another rank count and grid -------------------------------------------------------
    for source, ranks in ((2, 3), (4, 1)):
        origin = straight[source][0]
        target = work / f"restart{source}to{ranks}.tsa"
        restarted = sus.run(None, ranks, [f"output.dir={target}"],
                            options=["--restart", str(origin), "--checkpoint", "2"])
        compared = tool(tools, "tessera-compare", "--exact", origin, target)
        check(f"restart {source} -> {ranks} ranks from checkpoint 2: C, A and B bitwise the straight "
              f"run's (digests; tessera-compare --exact on timesteps 3 and 4)",
              restarted.returncode == 0 and restarted.digests == straight[source][1].digests
              and compared.returncode == 0 and "comparing timesteps 3, 4" in compared.stdout,
              f"{restarted.describe()}\n{compared.stdout}{compared.stderr}")

    # --- tessera-compare sees a changed C --------------------------------------------------------------
    other = work / "other.tsa"
    changed = sus.run(deck, 2, [*SHAPE, *ARCHIVE, "gemm.alpha=1.25", f"output.dir={other}"])
    compared = tool(tools, "tessera-compare", base, other)
    check("tessera-compare: another alpha differs in C, named with its entry",
          changed.returncode == 0 and compared.returncode == 1
          and re.search(r"different: 'C' at timestep 1 \(time 1\), entry \(\d+, \d+\)", compared.stdout),
          compared.stdout + compared.stderr)

    # --- a restart whose sizes changed ---------------------------------------------------------------
    before = sorted(p.name for p in work.iterdir())
    refused = sus.run(None, 2, [f"gemm.m={M + 1}"], options=["--restart", str(base)])
    after = sorted(p.name for p in work.iterdir())
    errors = [l for l in refused.stderr.splitlines() if l.startswith("sus:")]
    check("restart with gemm.m changed: exit 1, one message naming the block variable and both "
          "shapes, no run directory written",
          refused.returncode == 1 and len(errors) == 1
          and re.search(rf"block variable 'A' is {M} x {K} there and {M + 1} x {K} in this run",
                        refused.stderr)
          and before == after, f"{refused.describe()}\nbefore {before}\nafter {after}")

    # --- a quick look at C ------------------------------------------------------------------------------
    png = work / "c.png"
    drawn = tool(tools, "tessera-inspect", base, "--png", png, "--var", "C")
    content = viridis_content(png) if png.exists() else None
    check("tessera-inspect --png C: the matrix drawn (a large viridis area of many shades)",
          drawn.returncode == 0 and content is not None and content["fraction"] > 0.2
          and content["shades"] > 100, f"{content}\n{drawn.stdout}{drawn.stderr}")
    check.finish()


if __name__ == "__main__":
    main(run_checks)
