"""The run directory (index.yaml, one HDF5 file per output, result.json)
as Python objects; the file format is in docs/archiver.md."""
import json
import pathlib

import h5py
import numpy as np
import yaml

_GROUPS = ("reductions", "blocks", "levels", "balance")


def split_level(name):
    """'u@level2' -> ('u', 2); 'u' -> ('u', 0): a finer level's variable is
    named as sus names its digest."""
    base, at, level = name.rpartition("@level")
    if at and level.isdigit():
        return base, int(level)
    return name, 0


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
        """The variables of the first output: cell variables (level 0's, then
        u@level1 ... of a refined run), then block variables."""
        if not self._outputs:
            return []
        with self._open(self.timesteps[0]) as f:
            cells = sorted(name for name in f if name not in _GROUPS)
            levels = f["levels"] if "levels" in f else {}
            for level in sorted(levels, key=int):
                cells += [f"{name}@level{level}" for name in sorted(levels[level]["0"])]
            blocks = sorted(f["blocks"]) if "blocks" in f else []
        return cells + blocks

    def level_grid(self, level, timestep=None):
        """resolution, spacing and refinement_ratio of a level (0: the grid's),
        and its regions as (cells_lo, cells_hi) pairs."""
        if level == 0:
            grid = self.grid(timestep)
            return {"resolution": grid["resolution"], "spacing": grid["spacing"],
                    "refinement_ratio": np.ones(3, dtype=int),
                    "regions": [(np.zeros(3, dtype=int), grid["resolution"])]}
        with self._open(timestep) as f:
            if "levels" not in f or str(level) not in f["levels"]:
                raise RunError(f"{self.path}: no level {level} at timestep {self._entry(timestep)['timestep']}")
            group = f["levels"][str(level)]
            regions = [group[str(k)] for k in range(int(group.attrs["regions"]))]
            return {key: np.asarray(group.attrs[key]) for key in ("resolution", "spacing", "refinement_ratio")} | {
                "regions": [(np.asarray(r.attrs["cells_lo"]), np.asarray(r.attrs["cells_hi"])) for r in regions]}

    def levels(self, timestep=None):
        """The number of levels of an output (1 without refinement)."""
        with self._open(timestep) as f:
            return int(f.attrs.get("levels", 1))

    def is_block(self, name, timestep=None):
        with self._open(timestep) as f:
            return "blocks" in f and name in f["blocks"]

    def field(self, name, timestep=None, extra_cells=False):
        """A cell variable as an array [i, j, k] (the interior unless
        extra_cells), or a block variable as its rows x columns matrix, at
        `timestep` (default: the last output)."""
        base, level = split_level(name)
        if level > 0:
            return self._level_field(base, level, timestep, name)[0]
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
        base, level = split_level(name)
        if level > 0:
            field, covered = self._level_field(base, level, timestep, name, stored_type=True)
            return digest_of_cells(field, covered=covered)
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

    def _level_field(self, name, level, timestep, shown, stored_type=False):
        """A finer level's cell variable over the level's interior [i, j, k]
        (NaN, or zero with stored_type, where no region holds cells) and the
        mask of the cells its regions hold."""
        with self._open(timestep) as f:
            levels = f["levels"] if "levels" in f else {}
            if str(level) not in levels or name not in levels[str(level)]["0"]:
                raise RunError(f"{self.path}: no variable '{shown}' at timestep "
                               f"{self._entry(timestep)['timestep']} (variables: {', '.join(self.variables)})")
            group = levels[str(level)]
            resolution = tuple(int(n) for n in group.attrs["resolution"])
            regions = [group[str(k)] for k in range(int(group.attrs["regions"]))]
            dtype = regions[0][name].dtype if stored_type else np.float64
            field = np.full(resolution, 0 if stored_type else np.nan, dtype=dtype)
            covered = np.zeros(resolution, dtype=bool)
            for region in regions:
                lo = np.asarray(region.attrs["cells_lo"], dtype=int)
                hi = np.asarray(region.attrs["cells_hi"], dtype=int)
                first = lo - np.asarray(region.attrs["index_lo"], dtype=int)  # past the extra cells
                stored = np.transpose(region[name][()])
                inside = tuple(slice(a, b) for a, b in zip(lo, hi))
                field[inside] = stored[tuple(slice(f0, f0 + b - a) for f0, a, b in zip(first, lo, hi))]
                covered[inside] = True
            return field, covered

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


def digest_of_cells(field, index_lo=(0, 0, 0), covered=None):
    """The digest of a cell array [i, j, k] whose first cell is `index_lo`
    (only the cells where `covered` is true, if given)."""
    i, j, k = np.meshgrid(*(np.arange(n) + lo for n, lo in zip(field.shape, index_lo)), indexing="ij")
    digests = _cell_digests(i, j, k, field)
    if covered is not None:
        digests = digests[covered]
    return int(np.sum(digests, dtype=np.uint64))


def digest_of_matrix(matrix):
    """The digest of a block variable's global matrix."""
    rows, cols = np.meshgrid(np.arange(matrix.shape[0]), np.arange(matrix.shape[1]), indexing="ij")
    return int(np.sum(_cell_digests(rows, cols, np.zeros_like(rows), matrix), dtype=np.uint64))
