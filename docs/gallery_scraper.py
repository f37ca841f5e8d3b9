"""The gallery's image scraper: the figures an example script holds.

relplan draws its figures with matplotlib's object API (``Figure()``), never through
pyplot, so sphinx-gallery's own scraper (which asks pyplot for its figures) sees none of
them. This one looks through an example's variables after each of its code blocks and
saves every figure it has not saved before, in the order they were drawn.
"""

from __future__ import annotations

from typing import Any

DPI = 100
"""Resolution of the gallery's images, dots per inch."""

_SAVED: set[int] = set()
"""The figures already saved (their ids), so that a figure kept in a variable over
several blocks is shown once."""


def relplan_figures(block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any]) -> str:
    """Save the figures an example's variables hold that are new since its last block.

    Parameters
    ----------
    block, block_vars, gallery_conf
        As sphinx-gallery passes them to an image scraper.

    Returns
    -------
    str
        The reST that shows the images (empty when there is none).
    """
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    figures = [value for value in block_vars["example_globals"].values()
               if isinstance(value, Figure) and id(value) not in _SAVED]  # fmt: skip
    paths = []
    for figure, path in zip(figures, block_vars["image_path_iterator"], strict=False):
        figure.savefig(path, dpi=DPI)
        _SAVED.add(id(figure))
        paths.append(path)
    return figure_rst(paths, gallery_conf["src_dir"]) if paths else ""
