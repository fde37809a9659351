"""What the pvbatch pictures share: a render view on a white background."""
from paraview.simple import CreateView


def white_view(size):
    """A render view of `size` pixels, white, without the orientation axes."""
    view = CreateView("RenderView")
    view.ViewSize = size
    view.OrientationAxesVisibility = 0
    view.Background = [1.0, 1.0, 1.0]
    try:
        view.UseColorPaletteForBackground = 0
    except AttributeError:  # older ParaView: the background is set directly
        pass
    return view


def open_series(run):
    """The XDMF reader of a run directory's run.xmf and its times, printing
    the blocks (level regions) and cells ParaView reads at each; the
    animation follows the data's times."""
    from paraview.simple import GetAnimationScene, XDMFReader

    reader = XDMFReader(FileNames=[str(run / "run.xmf")])
    reader.UpdatePipelineInformation()
    times = list(reader.TimestepValues)
    for t in times:
        reader.UpdatePipeline(t)
        info = reader.GetDataInformation().DataInformation
        print(f"time {t:.6g}: {info.GetNumberOfDataSets()} blocks, {info.GetNumberOfCells()} cells")
    GetAnimationScene().UpdateAnimationUsingDataTimeSteps()
    return reader, times
