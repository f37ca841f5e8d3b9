"""Fingerprint the engine's numbers: a hash of every output array of a set of runs.

A change that must leave every number byte-identical (a refactor of the walk, a new
feature a config does not use) is checked by running this before and after it and
comparing the two files::

    python scripts/fingerprint_numbers.py --out /tmp/before.json
    # ... the change ...
    python scripts/fingerprint_numbers.py --out /tmp/after.json --against /tmp/before.json

The runs: every shipped config; ``configs/small.toml`` with each walk feature turned on
alone and all at once (:data:`benchmarks.features.FEATURE_VARIANTS`, on the shipped
config rather than its plain form, so that degraded, transient and elastic modes stay in);
a few recovery variants (elastic and per-step recovery, lemons, a restart built from
its parts); each on one worker and on two, and the traced timeline of one trial of each
(but :data:`UNTRACED`).
``--against`` exits 1 naming every run whose hash moved. ``--ignore FIELD`` leaves an
outcome field out of every hash: for comparing with a file made before that field
existed (a new per-trial count that runs without the feature leave at zero).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.features import FEATURE_VARIANTS  # noqa: E402
from relplan.config.loading import load_config  # noqa: E402
from relplan.sim.engine import simulate  # noqa: E402
from relplan.sim.model import build_model  # noqa: E402
from relplan.sim.trace import trace_trial  # noqa: E402

TRIALS = 300
SEED = 20261207

RECOVERY_VARIANTS: dict[str, tuple[str, ...]] = {
    "elastic": ('job.recovery="elastic"', "job.elastic.data_parallel=8"),
    "in_process": ('job.recovery="in-process"',),
    "lemons": ('failures.gpu.lemons={share="2%", factor=10}',),
    "restart_parts": ('job.restart={init="3min", init_scaling="log2", load="5min"}',),
}
"""``--set`` items of ``small`` that exercise recovery paths the feature variants miss
(any that the config schema refuses is reported and skipped)."""


UNTRACED = frozenset({"airesim-default"})
"""Runs whose traced trial is not hashed: an AIReSim-sized fleet's trial holds about
11,000 failures and 2 million intervals, over a minute to expand."""


def _digest(outcomes: object, ignore: frozenset[str] = frozenset()) -> str:
    digest = hashlib.sha256()
    for name, value in sorted(vars(outcomes).items()):
        if name in ignore:
            continue
        digest.update(name.encode())
        if isinstance(value, np.ndarray):
            digest.update(str(value.dtype).encode())
            digest.update(np.ascontiguousarray(value).tobytes())
        else:
            digest.update(repr(value).encode())
    return digest.hexdigest()


def _runs() -> dict[str, tuple[str, list[str]]]:
    runs = {path.stem: (str(path), []) for path in sorted((ROOT / "configs").glob("*.toml"))}
    small = str(ROOT / "configs" / "small.toml")
    for name, items in {**FEATURE_VARIANTS, **RECOVERY_VARIANTS}.items():
        runs[f"small+{name}"] = (small, list(items))
    return runs


def fingerprint(ignore: frozenset[str] = frozenset()) -> dict[str, str]:
    """Hash of each run's outcomes on one and two workers (but the fields ``ignore``
    names), and of one traced trial."""
    hashes: dict[str, str] = {}
    for name, (path, overrides) in _runs().items():
        try:
            model = build_model(load_config(path, overrides))
        except Exception as error:  # a variant the schema refuses: say so, skip it
            print(f"skipped {name}: {error}", file=sys.stderr)
            continue
        one = _digest(simulate(model, TRIALS, SEED, workers=1), ignore)
        two = _digest(simulate(model, TRIALS, SEED, workers=2), ignore)
        hashes[name] = one
        hashes[f"{name} (2 workers)"] = two
        if name in UNTRACED:
            continue
        intervals, failures = trace_trial(model, SEED, 7, TRIALS)
        hashes[f"{name} (trace)"] = hashlib.sha256(
            intervals.to_csv().encode() + failures.to_csv().encode()).hexdigest()
        print(f"{name}: {one[:12]}", file=sys.stderr)
    return hashes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSON file of the hashes")
    parser.add_argument("--against", type=Path, help="an earlier file to compare with")
    parser.add_argument("--ignore", action="append", default=[], metavar="FIELD",
                        help="an outcome field to leave out of the hashes (repeat)")
    arguments = parser.parse_args()
    hashes = fingerprint(frozenset(arguments.ignore))
    arguments.out.write_text(json.dumps(hashes, indent=1) + "\n")
    if arguments.against is None:
        return 0
    before = json.loads(arguments.against.read_text())
    moved = sorted(name for name in before.keys() | hashes.keys()
                   if before.get(name) != hashes.get(name))
    for name in moved:
        print(f"moved: {name}")
    print(f"{len(hashes) - len(moved)} of {len(hashes)} unchanged")
    return 1 if moved else 0


if __name__ == "__main__":
    raise SystemExit(main())
