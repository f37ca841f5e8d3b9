"""Provenance: which relplan, which config, which seed and how many trials made a number.

Every output (``summary.json``, ``summary.csv``'s sidecar, the Parquet files' metadata,
``optimize.json``, reports and figures) carries the record :func:`provenance_record`
makes, so a number found in a slide can be traced back to the run that made it.

The config's digest is the SHA-256 of a canonical JSON of the *validated* config (every
default filled in, every duration in canonical form, keys sorted): two files that differ
only in spelling, comments or key order give the same digest; any change of value, such
as a ``--set``, gives another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from relplan.version import __version__

if TYPE_CHECKING:
    import pandas as pd

    from relplan.config.study import Study

PROVENANCE_KEYS: tuple[str, ...] = ("relplan_version", "config_sha256", "seed", "trials")
"""The keys of every provenance record, in order."""


def config_digest(config: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of a validated config or a JSON-ready mapping.

    Parameters
    ----------
    config : RelplanConfig or mapping
        A validated config (a pydantic model: dumped in JSON mode with every default), or
        a plain JSON-ready mapping (such as a study's specification).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> from relplan.config.loading import load_config
    >>> a = config_digest(load_config("configs/small.toml"))
    >>> b = config_digest(load_config("configs/small.toml", ["job.spares=3"]))
    >>> len(a), a == b
    (64, False)
    """
    document = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                           allow_nan=False, default=str)  # fmt: skip
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def provenance_record(config_sha256: str, seed: int, trials: int) -> dict[str, Any]:
    """The provenance record of an output: relplan's version, the config digest, seed, trials.

    Parameters
    ----------
    config_sha256 : str
        The digest of the resolved config (:func:`config_digest`).
    seed : int
        The seed that fixes every number.
    trials : int
        Monte Carlo trials (per point or per interval where there are several).

    Returns
    -------
    dict
        ``relplan_version``, ``config_sha256``, ``seed``, ``trials`` (JSON-ready).

    Examples
    --------
    >>> record = provenance_record("ab" * 32, seed=0, trials=100)
    >>> list(record) == list(PROVENANCE_KEYS), record["trials"]
    (True, 100)
    """
    return {
        "relplan_version": __version__,
        "config_sha256": str(config_sha256),
        "seed": int(seed),
        "trials": int(trials),
    }


def provenance_line(record: Mapping[str, Any]) -> str:
    """A provenance record in one short line, for figure footers and report footers.

    Examples
    --------
    >>> line = provenance_line(provenance_record("0123456789abcdef" * 4, seed=3, trials=2000))
    >>> line.split(" · ")[1:]
    ['config sha256 0123456789ab', 'seed 3', '2,000 trials']
    """
    return (f"relplan {record['relplan_version']} · config sha256 "
            f"{str(record['config_sha256'])[:12]} · seed {record['seed']} · "
            f"{int(record['trials']):,} trials")  # fmt: skip


def study_provenance(study: Study, results: pd.DataFrame, trials: int) -> dict[str, Any]:
    """The provenance record of a study's outputs (see :func:`provenance_record`).

    Its ``config_sha256`` digests the study's specification together with the digest of
    every point's resolved config (the ``config_sha256`` column of the results), so it
    changes with the base config, the study and any point.

    Parameters
    ----------
    study : Study
        The study.
    results : pandas.DataFrame
        Its points (:func:`relplan.runs.sweep.run_study`).
    trials : int
        Trials per point.

    Returns
    -------
    dict
        The record; ``seed`` is the study's.
    """
    points = results["config_sha256"] if "config_sha256" in results.columns else []
    document = {"study": study.spec.model_dump(mode="json"), "points": [str(v) for v in points]}
    return provenance_record(config_digest(document), study.spec.seed, trials)


def comparison_provenance(data: Mapping[str, Any]) -> dict[str, Any]:
    """The provenance record of a comparison's outputs (see :func:`provenance_record`).

    Its ``config_sha256`` digests every scenario's name and resolved config digest
    together, in order, so it changes with any scenario.

    Parameters
    ----------
    data : mapping
        From :func:`relplan.runs.compare.compare_scenarios`: ``trials``, ``seed`` and
        ``scenarios`` (each with ``scenario`` and its ``provenance``).

    Examples
    --------
    >>> row = {"scenario": "a", "provenance": {"config_sha256": "ab" * 32}}
    >>> record = comparison_provenance({"trials": 10, "seed": 1, "scenarios": [row]})
    >>> record["seed"], record["trials"], len(record["config_sha256"])
    (1, 10, 64)
    """
    document = [[row["scenario"], row["provenance"]["config_sha256"]]
                for row in data["scenarios"]]  # fmt: skip
    return provenance_record(config_digest(document), int(data["seed"]), int(data["trials"]))
