"""Shared by the tests of the archive tools (test_gemm_archive.py,
test_python_archive.py): their command line, running tessera-inspect and
tessera-compare, and what a PNG of the quick look shows."""
import pathlib
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import colormaps  # noqa: E402

from sus_runner import Sus, fresh_directory, parse_common_args  # noqa: E402


def main(run_checks):
    """--sus S --mpirun M [--mpirun-flag=F]... DECK TOOLS_DIR PYTHON_DIR WORKDIR: WORKDIR is
    emptied first and removed at the end; python/ goes on the path (tessera_archive)."""
    sus_path, mpirun, flags, rest = parse_common_args(sys.argv[1:])
    deck, tools, python_dir, work = rest[0], pathlib.Path(rest[1]), rest[2], pathlib.Path(rest[3])
    sys.path.insert(0, python_dir)
    with fresh_directory(work):
        run_checks(Sus(sus_path, mpirun, flags), deck, tools, work)


def tool(tools, name, *args):
    """Runs tessera-inspect or tessera-compare from TOOLS_DIR."""
    return subprocess.run([str(tools / name), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def viridis_content(path):
    """The share of a PNG's pixels painted in viridis (the quick look's colour
    map), how many of the map's 256 shades appear and their mean: a blank or
    single-colour picture has few."""
    pixels = matplotlib.image.imread(str(path))[..., :3].reshape(-1, 3)
    lut = colormaps["viridis"](np.linspace(0.0, 1.0, 256))[:, :3]
    # The nearest shade of the map for each distinct colour (a picture has a
    # few thousand), then for every pixel through its colour.
    colours, which = np.unique(np.round(pixels * 255).astype(np.int64) @ np.array([65536, 256, 1]),
                               return_inverse=True)
    rgb = np.stack([colours // 65536, colours // 256 % 256, colours % 256], axis=1) / 255.0
    d = ((rgb[:, None, :] - lut[None, :, :]) ** 2).sum(axis=2)
    nearest = d.argmin(axis=1)[which]
    distance = d.min(axis=1)[which]
    painted = distance < (1.5 / 255) ** 2 * 3
    return {"fraction": float(painted.mean()), "shades": int(len(np.unique(nearest[painted]))),
            "mean_shade": float(nearest[painted].mean()) if painted.any() else None,
            "pixels": int(len(pixels))}
