"""relplan's version: one home, read by the package face, the CLI, provenance records and
the build (``pyproject.toml``).

Examples
--------
>>> from relplan.version import __version__
>>> __version__.count(".")
2
"""

__version__ = "0.2.0"
