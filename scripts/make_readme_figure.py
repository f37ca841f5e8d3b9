"""Regenerate the README's figure, docs/gallery/timeline-median-trial.png.

The figure is the gallery's example ``examples/plot_timeline_median_trial.py`` (the
timeline of the median trial of configs/seed-moe-10k.toml, 300 trials, seed 0): this
script runs it, adds the provenance line ``simulate --out`` adds, and saves it as a
small PNG (80 dpi). Every other figure lives in the gallery, drawn when the
documentation is built. Run from the repository root:

    python scripts/make_readme_figure.py
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "plot_timeline_median_trial.py"
TARGET = REPO / "docs" / "gallery" / "timeline-median-trial"
DPI = 80


def main() -> None:
    """Run the example and save its figure where the README shows it."""
    sys.path.insert(0, str(REPO))
    from relplan.analysis.provenance import provenance_line
    from relplan.output import plots

    example = runpy.run_path(str(EXAMPLE), run_name="__main__")
    figure = plots.provenance_footer(example["figure"],
                                     provenance_line(example["simulation"].provenance))
    path = plots.save_figure(figure, TARGET, formats=("png",), dpi=DPI)[0]
    print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
