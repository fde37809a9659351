"""The run directory (index.yaml, one HDF5 file per output, result.json)
as Python objects; the file format is in docs/archiver.md."""
import json
import pathlib

import h5py
import numpy as np
import yaml

_GROUPS = ("reductions", "blocks")


class RunError(Exception):
    """A run directory, timestep or variable that is not there."""


def open_run(path):
    """The run directory at `path` (or the link to its newest version)."""
    return Run(path)


class Run:
    def __init__(self, path):
        given = pathlib.Path(path)
        self.path = given.resolve()
        index = self.path / "index.yaml"
        if not index.is_file():
            raise RunError(f"{given}: not a Tessera run directory (no index.yaml)")
        with open(index) as f:
            self.index = yaml.safe_load(f)
        self._outputs = {entry["timestep"]: entry for entry in self.index.get("outputs") or []}

    def __repr__(self):
        return f"Run({str(self.path)!r}, timesteps {self.timesteps})"

    @property
    def component(self):
        return self.index.get("component")

    @property
    def timesteps(self):
        """The output timesteps, in order."""
        return sorted(self._outputs)

    def time(self, timestep):
        return self._entry(timestep)["time"]

    @property
    def variables(self):
        """The variables of the first output: cell variables, then block variables."""
        if not self._outputs:
            return []
        with self._open(self.timesteps[0]) as f:
            cells = sorted(name for name in f if name not in _GROUPS)
            blocks = sorted(f["blocks"]) if "blocks" in f else []
        return cells + blocks

    def is_block(self, name, timestep=None):
        with self._open(timestep) as f:
            return "blocks" in f and name in f["blocks"]

    def field(self, name, timestep=None, extra_cells=False):
        """A cell variable as an array [i, j, k] (the interior unless
        extra_cells), or a block variable as its rows x columns matrix, at
        `timestep` (default: the last output)."""
        with self._open(timestep) as f:
            dataset = self._dataset(f, name, timestep)
            data = dataset[()]
            if dataset.parent.name == "/blocks":
                return data
            stored = np.transpose(data)  # (z, y, x) on disk
            if extra_cells:
                return stored
            extra = np.asarray(f.attrs["extra_cells"], dtype=int)
            resolution = np.asarray(f.attrs["resolution"], dtype=int)
            return stored[tuple(slice(e, e + n) for e, n in zip(extra, resolution))]

    def grid(self, timestep=None):
        """lower, upper, spacing, resolution, extra_cells, index_lo and the
        writing run's patches, from the output's attributes."""
        with self._open(timestep) as f:
            keys = ("lower", "upper", "spacing", "resolution", "extra_cells", "index_lo", "patches")
            return {key: np.asarray(f.attrs[key]) for key in keys}

    def stored_digest(self, name, timestep=None):
        """The digest the file keeps for a variable (over every stored cell,
        extra cells included; every entry of a block variable)."""
        with self._open(timestep) as f:
            return int(self._dataset(f, name, timestep).attrs["digest"])

    def digest(self, name, timestep=None):
        """The digest sus prints for a state variable: over the interior
        cells of a cell variable, every entry of a block variable."""
        data = self.field(name, timestep)
        if data.ndim == 2:
            return digest_of_matrix(data)
        return digest_of_cells(data)

    @property
    def reductions(self):
        """{timestep: {name: value}} of every output."""
        found = {}
        for timestep in self.timesteps:
            with self._open(timestep) as f:
                group = f.get("reductions")
                found[timestep] = {name: group[name][()].item() for name in group} if group else {}
        return found

    @property
    def record(self):
        """The run record sus wrote beside the files (result.json), or None
        while the run has not finished."""
        path = self.path / "result.json"
        if not path.is_file():
            return None
        with open(path) as f:
            return json.load(f)

    def _entry(self, timestep):
        if timestep is None:
            if not self._outputs:
                raise RunError(f"{self.path}: no outputs")
            timestep = self.timesteps[-1]
        if timestep not in self._outputs:
            raise RunError(f"{self.path}: no output at timestep {timestep} "
                           f"(outputs: {', '.join(map(str, self.timesteps)) or 'none'})")
        return self._outputs[timestep]

    def _open(self, timestep):
        return h5py.File(self.path / self._entry(timestep)["file"], "r")

    def _dataset(self, f, name, timestep):
        if name not in _GROUPS and name in f:
            return f[name]
        if "blocks" in f and name in f["blocks"]:
            return f["blocks"][name]
        raise RunError(f"{self.path}: no variable '{name}' at timestep {self._entry(timestep)['timestep']} "
                       f"(variables: {', '.join(self.variables)})")


# The digests of Core/Grid/Variables/FieldDigest.h: a wrapping sum over
# cells of a hash of (global index, value bits).
def _mix64(v):
    v = v + np.uint64(0x9E3779B97F4A7C15)
    v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return v ^ (v >> np.uint64(31))


def _component(index):
    return np.asarray(index, dtype=np.int64).astype(np.uint32).astype(np.uint64)


def _cell_digests(i, j, k, values):
    with np.errstate(over="ignore"):
        where = _mix64(_mix64(_mix64(_component(i)) ^ _component(j)) ^ _component(k))
        stored = np.ascontiguousarray(values)  # the stored type's bits, zero-extended
        bits = stored.view(np.dtype(f"u{stored.dtype.itemsize}")).astype(np.uint64)
        return _mix64(where ^ _mix64(bits))


def digest_of_cells(field, index_lo=(0, 0, 0)):
    """The digest of a cell array [i, j, k] whose first cell is `index_lo`."""
    i, j, k = np.meshgrid(*(np.arange(n) + lo for n, lo in zip(field.shape, index_lo)), indexing="ij")
    return int(np.sum(_cell_digests(i, j, k, field), dtype=np.uint64))


def digest_of_matrix(matrix):
    """The digest of a block variable's global matrix."""
    rows, cols = np.meshgrid(np.arange(matrix.shape[0]), np.arange(matrix.shape[1]), indexing="ij")
    return int(np.sum(_cell_digests(rows, cols, np.zeros_like(rows), matrix), dtype=np.uint64))
