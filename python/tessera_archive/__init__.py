"""Read Tessera run directories as numpy arrays.

    import sys; sys.path.insert(0, "/path/to/tessera/python")
    from tessera_archive import open_run

    run = open_run("burgers.tsa")          # a run directory or its link
    run.timesteps                          # output timesteps, in order
    run.variables                          # what the outputs hold
    u = run.field("u", run.timesteps[-1])  # the whole level, u[i, j, k]
    c = run.field("C")                     # a block variable: the m x n matrix
    run.reductions                         # {timestep: {name: value}}
    run.record                             # the run record (result.json), or None

Cell variables come back indexed [i, j, k] in global cell indices (x
first), patches stitched, the interior by default (extra_cells=True keeps
the boundary layer: then index 0 is cell -extra_cells). Block variables
come back as their global rows x columns array, however the run cut them.
The files are read with h5py, whatever the number of ranks that wrote
them. See docs/archiver.md ("Python").
"""
from .archive import Run, RunError, digest_of_cells, digest_of_matrix, open_run

__all__ = ["Run", "RunError", "open_run", "digest_of_cells", "digest_of_matrix"]
