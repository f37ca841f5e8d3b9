"""relplan's version: one home, read by the package face, the CLI, provenance records and
the build (``pyproject.toml``).

Examples
--------
>>> from relplan.version import __version__
>>> __version__.count(".")
2
"""

__version__ = "0.2.0"

NUMBERS_VERSION = 3
"""The version of the numbers a seed gives: bumped by every change that moves a result for
the same config, seed and trials (a change of the random draws, of the walk's order of
draws), so that points stored by an older engine (:mod:`relplan.runs.store`) are not
mixed with new ones. 2: exponential gaps by a ziggurat, trial streams seeded by
SplitMix64 in the walk. 3: failures while the job is down only of the modes that can fail
idle (not fail-slow, corruption or per-job modes), drains at the detection and only of a
server's own legs, no maintenance window counted from a calendar window's end on (the
numbers of configs that use none of these features are unchanged)."""
