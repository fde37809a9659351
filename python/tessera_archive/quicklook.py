"""A quick look at a run: a slice of a cell variable, or a block variable's
matrix, as a PNG with a colour bar (matplotlib, Agg: no display needed).

    python3 -m tessera_archive.quicklook RUN --png FILE --var u [--timestep N]
                                         [--axis z] [--at K]

tessera-inspect --png runs this. Exit codes: 0 written, 1 bad input.
"""
import argparse
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend)
import numpy as np  # noqa: E402

from .archive import RunError, open_run, split_level  # noqa: E402

AXES = "xyz"


def slice_png(run, name, png, timestep=None, axis="z", at=None, dpi=100):
    """Writes the slice of cell variable `name` (a finer level's: u@level1,
    blank where the level has no cells) normal to `axis` at cell
    index `at` (default: the middle of the interior), or the matrix of a
    block variable, to `png`. Returns what the picture shows: (array shown,
    title)."""
    timestep = run.timesteps[-1] if timestep is None else timestep
    data = run.field(name, timestep)
    time = run.time(timestep)
    figure, axes = plt.subplots(figsize=(6.4, 5.2), dpi=dpi)
    if data.ndim == 2:
        shown = data
        image = axes.imshow(shown, origin="upper", cmap="viridis", interpolation="nearest",
                            aspect="auto" if max(shown.shape) > 4 * min(shown.shape) else "equal")
        axes.set_xlabel("column")
        axes.set_ylabel("row")
        title = f"{name} ({shown.shape[0]} x {shown.shape[1]}), timestep {timestep}, time {time:.6g}"
    else:
        if axis not in AXES:
            raise RunError(f"--axis must be x, y or z, not '{axis}'")
        normal = AXES.index(axis)
        if at is None:
            at = data.shape[normal] // 2
        if not 0 <= at < data.shape[normal]:
            raise RunError(f"--at {at}: the interior has cells 0 to {data.shape[normal] - 1} along {axis}")
        grid = run.grid(timestep)
        lower = grid["lower"]
        spacing = run.level_grid(split_level(name)[1], timestep)["spacing"]  # u@level1: the level's
        plane = [a for a in range(3) if a != normal]  # the picture's x and y axes
        shown = np.take(data, at, axis=normal).T      # rows: the second in-plane axis
        extent = [lower[plane[0]], lower[plane[0]] + spacing[plane[0]] * data.shape[plane[0]],
                  lower[plane[1]], lower[plane[1]] + spacing[plane[1]] * data.shape[plane[1]]]
        image = axes.imshow(shown, origin="lower", extent=extent, cmap="viridis", interpolation="nearest")
        axes.set_xlabel(AXES[plane[0]])
        axes.set_ylabel(AXES[plane[1]])
        position = lower[normal] + (at + 0.5) * spacing[normal]
        title = f"{name}, timestep {timestep}, time {time:.6g}\n{axis} = {position:.6g} (cell {at})"
    axes.set_title(title)
    figure.colorbar(image, ax=axes, label=name)
    figure.tight_layout()
    figure.savefig(png)
    plt.close(figure)
    return shown, title


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tessera-inspect RUN --png", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run")
    parser.add_argument("--png", required=True, help="the PNG file to write")
    parser.add_argument("--var", required=True, help="a cell or block variable")
    parser.add_argument("--timestep", type=int, help="an output timestep (default: the last)")
    parser.add_argument("--axis", default="z", help="the slice's normal: x, y or z (default z)")
    parser.add_argument("--at", type=int, help="the slice's cell index along --axis (default: the middle)")
    args = parser.parse_args(argv)
    try:
        run = open_run(args.run)
        _, title = slice_png(run, args.var, args.png, args.timestep, args.axis, args.at)
    except (RunError, OSError) as error:
        print(f"tessera-inspect: error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {args.png}: {title.replace(chr(10), ', ')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
