"""ParaView playing a run whose levels change (docs/amr.md, "Regridding"):
opens the run's time series (run.xmf), steps through its timesteps, prints
the blocks (level regions) and cells ParaView reads at each, and saves the
slice z = 0.5 at the first and the last output side by side, each level's
regions outlined.

    xvfb-run -a pvbatch scripts/pictures/regrid_series.py RUN_DIR PNG [VARIABLE]

(pvbatch: Debian's paraview package; xvfb-run: xvfb.)
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from paraview.simple import (ColorBy, GetColorTransferFunction, Outline,
                             SaveScreenshot, Show, Slice)

from pvview import open_series, white_view  # noqa: E402

run, png = pathlib.Path(sys.argv[1]), sys.argv[2]
variable = sys.argv[3] if len(sys.argv) > 3 else "u"
reader, times = open_series(run)
view = white_view([1500, 760])
lut = GetColorTransferFunction(variable)
lut.ApplyPreset("Viridis (matplotlib)", True)
cut = Slice(Input=reader)
cut.SliceType.Origin = [0.5, 0.5, 0.5]
cut.SliceType.Normal = [0.0, 0.0, 1.0]
shown = Show(cut, view)
ColorBy(shown, ("CELLS", variable))
edges = Show(Outline(Input=cut), view)
edges.DiffuseColor = [0.0, 0.0, 0.0]
edges.AmbientColor = [0.0, 0.0, 0.0]
view.CameraPosition = [0.5, 0.5, 3.0]
view.CameraFocalPoint = [0.5, 0.5, 0.5]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
frames = []
for t in (times[0], times[-1]):
    view.ViewTime = t
    shown.Representation = "Surface With Edges"
    shown.EdgeColor = [0.3, 0.3, 0.3]
    shown.RescaleTransferFunctionToDataRange(True, False)
    view.ResetCamera()
    frame = f"{png}.{len(frames)}.png"
    SaveScreenshot(frame, view, ImageResolution=[760, 760])
    frames.append(frame)
print("frames: " + " ".join(frames))
