"""Rewrite the generated section of docs/reference/config.md ("Every key") from the schema.

Every key's type, default, unit and description come from relplan/config/schema.py (its
``Field`` descriptions; see relplan.config.reference). Run from the repository root after
changing a key:

    python scripts/make_config_reference.py          # rewrites the section
    python scripts/make_config_reference.py --check  # exit 1 when the page is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "reference" / "config.md"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the page's generated section, or (``--check``) say whether it is current."""
    sys.path.insert(0, str(REPO))
    from relplan.config.reference import page_with_reference
    from relplan.output.files import write_atomic

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the page differs from the schema; change nothing")
    args = parser.parse_args(argv)
    text = PAGE.read_text(encoding="utf-8")
    updated = page_with_reference(text)
    if args.check:
        if updated != text:
            print(f"{PAGE.relative_to(REPO)} is out of date: run "
                  "python scripts/make_config_reference.py", file=sys.stderr)
            return 1
        return 0
    if updated != text:
        write_atomic(PAGE, lambda path: path.write_text(updated, encoding="utf-8"))
        print(f"wrote {PAGE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
