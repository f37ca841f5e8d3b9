"""Regenerate the README's figure gallery (docs/gallery/*.png) from the shipped configs.

One small PNG (80 dpi) per figure type relplan draws: the five figures of
``simulate --out`` (configs/seed-moe-10k.toml), the plot of ``optimize --out``
(configs/small.toml), the figures of ``sweep`` reports (studies/recovery-strategies.toml
and studies/checkpoint-cadence-seed-moe.toml) and those of ``plan``
(studies/redundancy-plan-seed-moe.toml). Run from the repository root:

    python scripts/make_gallery.py

It takes about a minute on two cores; the numbers use fewer trials than the configs ask
for, which changes the figures' noise, not their look.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GALLERY = REPO / "docs" / "gallery"
DPI = 80


def main() -> None:
    """Write every gallery PNG into docs/gallery/."""
    sys.path.insert(0, str(REPO))
    from matplotlib.figure import Figure

    import relplan
    from relplan.analysis.provenance import provenance_line, study_provenance
    from relplan.config.plan import load_plan
    from relplan.config.study import load_study
    from relplan.output import plan_plots, plots
    from relplan.output.report import write_simulation_figures
    from relplan.runs.planner import run_plan
    from relplan.runs.sweep import run_study
    from relplan.units import parse_duration_hours

    GALLERY.mkdir(parents=True, exist_ok=True)

    def save(figure: Figure, stem: str) -> None:
        path = plots.save_figure(figure, GALLERY / stem, formats=("png",), dpi=DPI)[0]
        print(f"wrote {path.relative_to(REPO)} ({path.stat().st_size / 1024:.0f} KiB)")

    result = relplan.simulate(REPO / "configs" / "seed-moe-10k.toml", trials=300, seed=0)
    with tempfile.TemporaryDirectory() as scratch:
        for path in write_simulation_figures(result, Path(scratch), formats=("png",), dpi=DPI):
            target = GALLERY / path.name
            target.write_bytes(path.read_bytes())
            print(f"wrote {target.relative_to(REPO)} ({target.stat().st_size / 1024:.0f} KiB)")

    optimum = relplan.optimize_interval(REPO / "configs" / "small.toml", trials=300, seed=0)
    figure = plots.goodput_vs_interval(
        optimum.curve, "small", optimum.young_hours, optimum.daly_hours,
        optimum.mc_optimal_hours, optimum.mc_optimal_ci95, optimum.p95_optimal_hours,
        optimum.p95_optimal_ci95,
    )  # fmt: skip
    record = optimum.to_dict()["provenance"]
    save(plots.provenance_footer(figure, provenance_line(record)), "goodput-vs-interval")

    recovery = load_study(REPO / "studies" / "recovery-strategies.toml")
    points = run_study(recovery, trials=200)
    line = provenance_line(study_provenance(recovery, points, 200))
    spec = recovery.spec
    save(plots.provenance_footer(plots.metric_by_point(points, "goodput", spec.name,
                                                       reference=spec.reference), line),
         "goodput-ci-by-point")  # fmt: skip
    breakdown = points[["label", *[c for c in points.columns if c.endswith("_hours_mean")]]]
    breakdown = breakdown.rename(columns=lambda c: c.removesuffix("_hours_mean"))
    save(plots.provenance_footer(plots.lost_hours_by_bucket(breakdown, spec.name,
                                                            reference=spec.reference), line),
         "lost-hours-by-point")  # fmt: skip

    cadence = load_study(REPO / "studies" / "checkpoint-cadence-seed-moe.toml")
    points = run_study(cadence, trials=60)
    line = provenance_line(study_provenance(cadence, points, 60))
    frame = points.copy()
    frame["job.checkpoint.interval"] = frame["job.checkpoint.interval"].map(parse_duration_hours)
    save(plots.provenance_footer(plots.sweep_curves(
        frame, "job.checkpoint.interval", list(cadence.spec.metrics), cadence.spec.name,
        labels={"job.checkpoint.interval": "Checkpoint interval (hours)"}), line), "sweep")

    plan = load_plan(REPO / "studies" / "redundancy-plan-seed-moe.toml")
    answer = run_plan(plan, trials=100)
    line = provenance_line(answer["provenance"])
    for stem, draw in (("frontier", plan_plots.frontier_figure),
                       ("attribution", plan_plots.attribution_figure),
                       ("tornado", plan_plots.tornado_figure)):  # fmt: skip
        save(plots.provenance_footer(draw(answer), line), stem)


if __name__ == "__main__":
    main()
