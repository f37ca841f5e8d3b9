"""Convert the InfiniteHBD-Trace fault trace into relplan's incident-log format.

Source: https://github.com/stepfun-ai/InfiniteHBD-Trace (StepFun, Apache License 2.0),
``fault_trace.json`` at commit 7aacdc8: fault_start / fault_end events of 400 GPU servers
over 348 days from 2024-03-30, with relative times in days and anonymised server ids.

Writes, under tests/data/infinitehbd/:

- ``faults.csv``: one row per hardware fault (Level "Hardware Failure"): ``time`` (ISO
  8601: 2024-03-30T00:00Z plus the trace's ``event_time`` in days, to the second; the
  trace gives relative days only, so the dates are nominal), ``category`` (the trace's
  Class), ``unit`` (the first 8 characters of the server's UUID, unique in the trace),
  ``repair_hours`` (fault_end - fault_start of the same server and description: the
  server's time out of service, not a job's downtime) and ``desc`` (the trace's Desc).
- ``repairs.csv``: ``hours`` (the same repair times), ``failed`` (1: every repair ended)
  and ``category``, for ``relplan fit --as repair --group category``.

Run from the repository root, with the trace's JSON file as the argument:

    python scripts/convert_infinitehbd.py path/to/fault_trace.json
"""

from __future__ import annotations

import csv
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "data" / "infinitehbd"
ORIGIN = datetime(2024, 3, 30, tzinfo=UTC)
LEVEL = "Hardware Failure"


def convert(trace_path: Path) -> list[dict[str, str]]:
    """The hardware faults of the trace as incident-log rows, in time order."""
    events = json.loads(trace_path.read_text(encoding="utf-8"))
    open_faults: dict[tuple[str, str], dict] = {}
    rows = []
    for event in events:
        fault = event["fault_type"]
        key = (event["node_id"], fault["Desc"])
        if event["event_type"] == "fault_start":
            if key in open_faults:
                raise ValueError(f"fault {key} starts twice")
            open_faults[key] = event
            continue
        start = open_faults.pop(key)
        if fault["Level"] != LEVEL:
            continue
        moment = ORIGIN + timedelta(days=start["event_time"])
        rows.append({
            "time": moment.replace(microsecond=0).isoformat().replace("+00:00", "Z"),
            "category": fault["Class"],
            "unit": event["node_id"][:8],
            "repair_hours": f"{(event['event_time'] - start['event_time']) * 24.0:.4f}",
            "desc": fault["Desc"],
        })  # fmt: skip
    if open_faults:
        raise ValueError(f"{len(open_faults)} faults never end")
    return sorted(rows, key=lambda row: row["time"])


def main() -> None:
    """Write faults.csv and repairs.csv from the trace named on the command line."""
    rows = convert(Path(sys.argv[1]))
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / "faults.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    with (OUT / "repairs.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["hours", "failed", "category"])
        for row in rows:
            writer.writerow([row["repair_hours"], 1, row["category"]])
    print(f"wrote {len(rows)} faults to {OUT}")


if __name__ == "__main__":
    main()
