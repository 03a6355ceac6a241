"""PNG and PDF from the SVG, through CairoSVG (the `attnviz[png]` extra) and the system's Cairo.

CairoSVG is imported only here, only when a PNG or PDF is asked for. It reads the
presentation attributes (it skips the <style>, which sits in @supports), so a PNG
shows the theme's colours; `auto` exports as light.
"""

from __future__ import annotations

import os
from numbers import Real

from ..errors import InputError
from ..layout.frames import get_frame
from ..words.budget import MAX_PIXELS_A_SIDE, check_pdf, check_png
from .formats import FORMATS, either, provided_by

TYPE_CHECKING = False  # a type checker takes it as True; the command never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from ..layout.figure import Layout
    from ..layout.frames import Frame

    class Picture(Protocol):
        """What a format's writer draws: a figure's frame (its name), SVG, layout, and a layout painted as SVG."""

        frame: str

        def svg(self) -> str: ...
        def layout(self) -> Layout: ...
        def painted(self, layout: Layout) -> str: ...

__all__ = ["FORMATS", "format_for", "to_png", "to_pdf", "png_scale", "png_resolution", "pdf_scale", "MAX_PIXELS_A_SIDE",
           "CSS_DPI", "PRINT_DPI", "write_svg", "write_png", "write_pdf"]

CSS_DPI = 96  # one SVG user unit is one CSS pixel, 1/96 inch
DEFAULT_PNG_SCALE = 2  # sharp on high-density screens and projectors
# A quarter pixel per unit is a thumbnail already (the seed figure 180 px wide); below it text is a smudge.
SCALES = (0.25, 25)  # pixels per SVG unit
DPIS = (SCALES[0] * CSS_DPI, SCALES[1] * CSS_DPI)  # 24 to 2400
PRINT_DPI = 300  # a paper column's PNG: its printed width at print resolution


def format_for(path: object, format: str | None = None, where: str = "-f", path_where: str = "-o",
               chooser: str = f"-f {'|'.join(FORMATS)}") -> str:
    """The output format: `format` if given, else the path's extension, else SVG; they must agree.

    An extension that is not a format (`fig.jpg`) is refused, not filled with SVG."""
    by_extension = {entry.extension: name for name, entry in FORMATS.items()}
    suffix = _suffix(str(path))[1:].lower()
    if format is None:
        if suffix and suffix not in by_extension:
            raise InputError(f"attnviz writes {either([name.upper() for name in FORMATS])}, and '.{suffix}' is none "
                             f"of them; name the file {either(['.' + ext for ext in by_extension])}, or choose the "
                             f"format: {chooser}", f"{path_where} {path}")
        return by_extension.get(suffix, next(iter(FORMATS)))
    format = format.lower()
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r}; choose {either(list(FORMATS))}", where)
    if by_extension.get(suffix, format) != format and str(path) != "-":
        raise InputError(f"format {format} does not match the file name {path!r}", where)
    return format


def write_svg(picture: Picture, scale: float | None = None, dpi: float | None = None, width: int | None = None) -> str:
    """The SVG file's text (the resolution is a PNG's: not used)."""
    return picture.svg() + "\n"


def write_png(picture: Picture, scale: float | None = None, dpi: float | None = None,
              width: int | None = None) -> bytes:
    """The PNG file (`png_resolution`'s size for the picture's frame), its budget checked before it is painted."""
    png_scale(scale, dpi)  # a bad scale is refused before any layout
    layout = picture.layout()
    pixels, recorded = png_resolution(get_frame(picture.frame), layout.width, scale, dpi, width)
    where = "width" if width is not None else "dpi" if dpi is not None else "scale"
    return to_png(lambda: picture.painted(layout), layout.width, layout.height, pixels, recorded, where)


def write_pdf(picture: Picture, scale: float | None = None, dpi: float | None = None,
              width: int | None = None) -> bytes:
    """The PDF file, titled, its page the frame's size (`pdf_scale`), its budget checked before it is painted."""
    layout = picture.layout()
    page_scale = pdf_scale(get_frame(picture.frame), layout.width)
    check_pdf(layout.width * page_scale, layout.height * page_scale)  # before the SVG is written or drawn
    return to_pdf(picture.painted(layout), title=layout.title, scale=page_scale, size=(layout.width, layout.height))


def _suffix(path: str) -> str:
    """The extension as pathlib's PurePath(path).suffix reads it (".hidden" has none, "new/" names a folder),
    without importing pathlib into the command that writes the default SVG."""
    parts = [part for part in path.split(os.sep) if part not in ("", ".")]
    name = parts[-1] if parts else ""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def png_scale(scale: float | None = None, dpi: float | None = None) -> tuple[float, float]:
    """Pixels per SVG unit: `scale`, or `dpi`/96, or the default 2; with the DPI the PNG records.
    Errors name the API's arguments, `scale` and `dpi` (the command line renames them)."""
    for name, value in (("scale", scale), ("dpi", dpi)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
            raise InputError(f"expected a number, got {type(value).__name__}", name)
    if scale is not None and dpi is not None:
        raise InputError("give a scale or a DPI, not both", "dpi")
    if dpi is not None:
        if not DPIS[0] <= dpi <= DPIS[1]:
            raise InputError(f"{dpi:g} is out of range; use a DPI from {DPIS[0]:g} to {DPIS[1]:g}", "dpi")
        return dpi / CSS_DPI, dpi
    scale = DEFAULT_PNG_SCALE if scale is None else scale
    if not SCALES[0] <= scale <= SCALES[1]:
        raise InputError(f"{scale:g} is out of range; use a scale from {SCALES[0]:g} to {SCALES[1]:g}", "scale")
    return scale, scale * CSS_DPI


def png_resolution(frame: Frame, layout_width: float, scale: float | None = None, dpi: float | None = None,
                   width: int | None = None) -> tuple[float, float]:
    """Pixels per SVG unit and the DPI the PNG records, for a figure `layout_width` units wide in `frame`.

    At most one of `scale` (pixels per unit), `dpi` (at the frame's physical width, for frames that have
    one: a slide is 13.333 inches, a column 3.3) and `width` (pixels); without them, the frame's own: a
    slide's 1,280 px (960 for 4:3), a column's width at 300 dpi, a doc figure at scale 2.

    >>> from attnviz.layout.frames import get_frame
    >>> [round(n, 2) for n in png_resolution(get_frame("slide"), 640) + png_resolution(get_frame("column"), 330)]
    [2.0, 96.0, 3.0, 300.0]
    >>> [round(n, 2) for n in png_resolution(get_frame("slide"), 640, width=1920)]
    [3.0, 144.0]
    """
    inches = frame.width_in
    if width is not None:
        if scale is not None or dpi is not None:
            raise InputError("give a width, a scale or a DPI, not two of them", "width")
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise InputError(f"expected a whole number of pixels, 1 or more, got {width!r}", "width")
        scale = width / layout_width
        return scale, width / inches if inches else scale * CSS_DPI
    if not inches:
        return png_scale(scale, dpi)
    if scale is None and dpi is None:
        pixels = frame.judged_px or PRINT_DPI * inches
        return pixels / layout_width, pixels / inches
    checked, _ = png_scale(scale, dpi)  # each in its range, not both
    if dpi is not None:
        return dpi * inches / layout_width, dpi
    return checked, checked * layout_width / inches


def pdf_scale(frame: Frame, layout_width: float) -> float:
    """What a PDF page scales the figure by: 1 for a doc figure (a unit is 3/4 point), else so that the page
    is the frame's physical width (a slide 13.333 × 7.5 inches, a column 3.3 inches wide)."""
    return frame.width_in * CSS_DPI / layout_width if frame.width_in and layout_width else 1.0


def to_png(svg: str | Callable[[], str], width: float, height: float, scale: float, dpi: float,
           where: str = "scale") -> bytes:
    """PNG bytes of `svg` (its size `width` x `height` in SVG units) at `scale` pixels per unit, with `dpi`
    recorded (pHYs): both from `png_resolution`; `where` names the argument a PNG too large is blamed on.

    `svg` may be a function that returns the SVG, so that it is written only once the size is in budget."""

    check_png(width, height, scale, where)
    svg = svg() if callable(svg) else svg
    _cairosvg()
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]  # CairoSVG ships no type hints

    import io

    out = io.BytesIO()
    # The size in pixels, not the root's (a column's is in inches): `scale` is pixels per SVG unit.
    _true_advances(PNGSurface).convert(bytestring=svg.encode("utf-8"), write_to=out, output_width=width * scale,
                                       output_height=height * scale)
    return _with_dpi(out.getvalue(), dpi)


def to_pdf(svg: str, title: str | None = None, scale: float = 1.0, size: tuple[float, float] | None = None) -> bytes:
    """PDF bytes of `svg`: vector, text as text, titled, no creation date (same input, same bytes); `scale`:
    the page's size over the figure's (`pdf_scale`), `size`: the figure's in SVG units (its viewBox's; None:
    the root's width and height, which must then be unitless)."""
    _cairosvg()
    import cairocffi  # type: ignore[import-untyped]  # cairocffi ships no type hints
    from cairosvg.surface import PDFSurface

    surface_class = _true_advances(PDFSurface)

    class StablePDFSurface(surface_class):  # type: ignore[misc,valid-type]  # a subclass of CairoSVG's (untyped)
        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            surface, width, height = super()._create_surface(width, height)
            surface.set_metadata(cairocffi.PDF_METADATA_CREATE_DATE, "")
            if title:
                surface.set_metadata(cairocffi.PDF_METADATA_TITLE, title)
            return surface, width, height

    import io  # PNG and PDF only: kept off the SVG path's start-up

    out = io.BytesIO()
    sized = {"scale": scale} if size is None else {"output_width": size[0] * scale, "output_height": size[1] * scale}
    StablePDFSurface.convert(bytestring=svg.encode("utf-8"), write_to=out, **sized)
    return out.getvalue()


def _true_advances(surface_class: Any) -> Any:
    """A CairoSVG surface that places glyphs at their true advances, as browsers and attnviz's layout do.

    Cairo rounds each advance to a whole pixel by default ("hint metrics"), so a long line
    drifts pixels from where a browser draws it. CairoSVG resets the font options for every
    element, so its drawing context is one that always turns that rounding off.
    """
    import cairocffi  # the png extra (Cairo), imported when a PDF is drawn

    class TrueAdvancesContext(cairocffi.Context):  # type: ignore[misc]  # a subclass of cairocffi's (untyped)
        def set_font_options(self, options: Any) -> None:
            options.set_hint_metrics(cairocffi.HINT_METRICS_OFF)
            super().set_font_options(options)

    class TrueAdvancesSurface(surface_class):  # type: ignore[misc]  # a subclass of CairoSVG's (untyped)
        @property
        def context(self) -> Any:
            return self._context

        @context.setter
        def context(self, context: Any) -> None:
            self._context = TrueAdvancesContext(context.get_target())

    return TrueAdvancesSurface


def _cairosvg() -> Any:
    _bundled_fonts()
    try:
        import cairosvg  # type: ignore[import-untyped]  # CairoSVG ships no type hints
    except ImportError:
        # (no `where`: the format is not wrong, a library is missing; `-o x.png` never typed -f)
        raise InputError(f"{provided_by('png')} need CairoSVG: pip install 'attnviz[png]'") from None
    except OSError as err:  # cairocffi found no Cairo library
        raise InputError(f"{provided_by('png')} need the Cairo library (Debian: apt-get install libcairo2): {err}") \
            from None
    return cairosvg


_FONTS_ADDED: list[bool] = []  # (once a process)


def _bundled_fonts() -> None:
    """Give Cairo the DejaVu fonts attnviz measures its text with (`attnviz/fonts`), as the process's application
    fonts (fontconfig's FcConfigAppFontAddDir): a PNG or PDF then looks the same on a machine without DejaVu,
    where an SVG's own @font-face (`--embed-font`) is read by browsers only. No fontconfig: nothing to do."""
    if _FONTS_ADDED:
        return
    _FONTS_ADDED.append(True)
    import ctypes  # start-up: only PNG and PDF output loads fontconfig
    import ctypes.util

    from ..layout.metrics import FONT_DIR

    name = ctypes.util.find_library("fontconfig")
    if name is None:
        return
    try:
        fontconfig = ctypes.CDLL(name)
    except OSError:
        return
    fontconfig.FcConfigAppFontAddDir.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    fontconfig.FcConfigAppFontAddDir(None, os.fsencode(FONT_DIR))


def _with_dpi(png: bytes, dpi: float) -> bytes:
    """Insert a pHYs chunk (pixels per metre) after IHDR, so image tools know the print size."""
    import struct  # PNG only: kept off the SVG path's start-up
    import zlib

    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    end_of_ihdr = 8 + 8 + 13 + 4  # signature, IHDR length and type, IHDR data, CRC
    return png[:end_of_ihdr] + chunk + png[end_of_ihdr:]
