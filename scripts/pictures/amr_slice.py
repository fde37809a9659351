"""A picture of a refined run as ParaView shows it: the slice z = 0.5 of
the last output (its XDMF: one block per level region), coloured by a
variable, with each level's blocks outlined.

    xvfb-run -a pvbatch scripts/pictures/amr_slice.py RUN_DIR PNG [VARIABLE]

(pvbatch: Debian's paraview package; xvfb-run: xvfb.) docs/amr.md shows
the result for a two-level Burgers run.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from paraview.simple import (ColorBy, ExtractBlock, GetColorTransferFunction, GetScalarBar,
                             Outline, SaveScreenshot, Show, Slice, Transform, XDMFReader)

from pvview import white_view  # noqa: E402

run, png = pathlib.Path(sys.argv[1]), sys.argv[2]
variable = sys.argv[3] if len(sys.argv) > 3 else "u"
outputs = sorted(run.glob("t*.xmf"))
reader = XDMFReader(FileNames=[str(outputs[-1])])
reader.UpdatePipeline()

view = white_view([900, 760])

# One slice per level, each finer one drawn a little nearer the camera so
# that it covers the coarse cells it refines (the levels overlap in space).
levels = reader.GetDataInformation().DataInformation.GetHierarchy()
blocks = [levels.GetNodeName(node) for node in levels.GetChildNodes(0)]
lut = GetColorTransferFunction(variable)
lut.ApplyPreset("Viridis (matplotlib)", True)
for order, block in enumerate(blocks):
    level = ExtractBlock(Input=reader, Selectors=[f"/Root/{block}"])
    cut = Slice(Input=level)
    cut.SliceType.Origin = [0.5, 0.5, 0.5]
    cut.SliceType.Normal = [0.0, 0.0, 1.0]
    cut.Triangulatetheslice = 0
    lifted = Transform(Input=cut)
    lifted.Transform.Translate = [0.0, 0.0, 0.01 * order]
    shown = Show(lifted, view)
    ColorBy(shown, ("CELLS", variable))
    # The cell edges show each level's resolution; the outline its extent.
    shown.Representation = "Surface With Edges"
    shown.EdgeColor = [0.3, 0.3, 0.3]
    edges = Show(Outline(Input=lifted), view)
    edges.DiffuseColor = [0.0, 0.0, 0.0]
    edges.AmbientColor = [0.0, 0.0, 0.0]
    edges.LineWidth = 3.0
shown.SetScalarBarVisibility(view, True)
bar = GetScalarBar(lut, view)
bar.Title = f"{variable} (z = 0.5)"
bar.ComponentTitle = ""
bar.TitleColor = [0.0, 0.0, 0.0]
bar.LabelColor = [0.0, 0.0, 0.0]
shown.RescaleTransferFunctionToDataRange(True, False)

view.CameraPosition = [0.5, 0.5, 3.0]
view.CameraFocalPoint = [0.5, 0.5, 0.5]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
view.ResetCamera()
SaveScreenshot(png, view, ImageResolution=[900, 760])
print(f"wrote {png} from {outputs[-1]}")
