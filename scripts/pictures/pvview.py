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
