"""The swirl's refined levels in ParaView (docs/advection.md): opens a run's
time series (run.xmf), prints the blocks (level regions) and cells ParaView
reads at each output, and saves the slice through the middle of the box at
the outputs nearest t = 0, 0.5, 1 and 2, phi coloured on one fixed scale and
each level's regions outlined, one PNG per time (PNG.0.png ... PNG.3.png).

    xvfb-run -a pvbatch scripts/pictures/swirl_series.py RUN_DIR PNG

(pvbatch: Debian's paraview package; xvfb-run: xvfb.) A run with
output.interval: 0.5 writes exactly those times.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from paraview.simple import (ColorBy, GetColorTransferFunction, Outline,
                             SaveScreenshot, Show, Slice)

from pvview import open_series, white_view  # noqa: E402

run, png = pathlib.Path(sys.argv[1]), sys.argv[2]
reader, times = open_series(run)
view = white_view([760, 760])
lut = GetColorTransferFunction("phi")
lut.ApplyPreset("Viridis (matplotlib)", True)
lut.RescaleTransferFunction(1.0, 2.0)  # phi lies in [1, 2]: one scale for every time
bounds = reader.GetDataInformation().DataInformation.GetBounds()
middle = 0.5 * (bounds[4] + bounds[5])
cut = Slice(Input=reader)
cut.SliceType.Origin = [0.5, 0.5, middle]
cut.SliceType.Normal = [0.0, 0.0, 1.0]
shown = Show(cut, view)
ColorBy(shown, ("CELLS", "phi"))
shown.Representation = "Surface"
# Each block (a level's region) outlined: the slice shown again as outlines.
boxes = Show(Outline(Input=cut), view)
boxes.DiffuseColor = [1.0, 1.0, 1.0]
boxes.AmbientColor = [1.0, 1.0, 1.0]
boxes.LineWidth = 2.0
view.CameraPosition = [0.5, 0.5, 3.0]
view.CameraFocalPoint = [0.5, 0.5, middle]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
frames = []
for wanted in (0.0, 0.5, 1.0, 2.0):
    t = min(times, key=lambda have: abs(have - wanted))
    view.ViewTime = t
    view.ResetCamera()
    frame = f"{png}.{len(frames)}.png"
    SaveScreenshot(frame, view, ImageResolution=[760, 760])
    frames.append(frame)
    print(f"frame {frame}: t = {t:.6g}")
