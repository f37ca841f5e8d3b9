"""The config reference (docs/reference/config.md) names every key of the schema, and no
key the schema does not have: its generated tables are current, cover every key, and the
hand-written example and prose around them name only real keys."""

from __future__ import annotations

import re
import types
from typing import Annotated, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from relplan.config import schema
from relplan.config.reference import BEGIN, END, NAME, page_with_reference
from relplan.vocab import COMPONENT_CLASSES
from tests.conftest import REPO

PAGE = REPO / "docs" / "reference" / "config.md"
TABLES = ("cluster", "network", "failures", "job", "workload", "maintenance", "budget",
          "simulation")  # fmt: skip


def _held(annotation) -> list[tuple[type[BaseModel], bool]]:
    """The schema classes an annotation holds, each with whether it is a table of them."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return [held for arg in get_args(annotation) for held in _held(arg)]
    if origin is Annotated:
        return _held(get_args(annotation)[0])
    if origin is dict:
        return [(model, True) for model, _ in _held(get_args(annotation)[1])]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    return []


def schema_keys(model: type[BaseModel] = schema.RelplanConfig, prefix: str = "") -> set[str]:
    """Every dotted key of the schema (a failure mode's name as NAME), walked on its own."""
    keys = set()
    for name, field in model.model_fields.items():
        key = prefix + name
        keys.add(key)
        for inner, many in _held(field.annotation):
            keys |= schema_keys(inner, f"{key}.{NAME}." if many else f"{key}.")
    return keys


def fleet_keys() -> set[str]:
    """The keys of a fleet config beyond the schema's: ``[fleet]``'s and a ``[[jobs]]``
    entry's own."""
    from relplan.config.fleet_config import JOB_ENTRIES

    return ({f"fleet.{name}" for name in schema.FleetConfig.model_fields}
            | {f"jobs.NAME.{name}" for name in JOB_ENTRIES})  # fmt: skip


def page_keys(page: str) -> set[str]:
    """The dotted keys the page's generated tables name (a shared table's rows at each of
    the paths its heading names)."""
    section = page[page.index(BEGIN):page.index(END)]
    keys: set[str] = set()
    paths: list[str] = []
    for line in section.splitlines():
        if line.startswith("### "):
            named = re.findall(r"`\[?([\w.]+)\]?`", line)
            paths = named if len(named) > 1 else []
        elif row := re.match(r"^\| `([\w.]+)` \|", line):
            keys |= {f"{path}.{row.group(1)}" for path in paths} if paths else {row.group(1)}
    return keys


def _as_schema_key(key: str) -> str:
    """A key as the schema names it: a failure mode's name as NAME, a price's class left
    out (``budget.prices.gpu`` is a price of ``budget.prices``)."""
    key = re.sub(r"^failures\.[\w-]+\.", f"failures.{NAME}.", key)
    prices = re.fullmatch(r"budget\.prices\.(\w+)", key)
    return "budget.prices" if prices and prices.group(1) in COMPONENT_CLASSES else key


def example_keys(page: str) -> set[str]:
    """The dotted keys of the page's TOML example, commented-out keys included (a key of
    an inline table too: ``lifetime = { dist = ... }`` names ``lifetime.dist``)."""
    block = re.search(r"^```toml\n(.*?)^```", page, flags=re.MULTILINE | re.DOTALL).group(1)
    keys: set[str] = set()
    table = ""
    for line in block.splitlines():
        line = re.sub(r"^#\s?(?=[\w\"]+\s*=)", "", line.strip())  # an example, commented out
        line = re.sub(r"\s+#.*$", "", line)
        if header := re.fullmatch(r"\[([\w.]+)\]", line):
            table = header.group(1)
        elif entry := re.match(r"^([\w.]+)\s*=\s*(.*)$", line):
            key = f"{table}.{entry.group(1)}" if table else entry.group(1)
            keys.add(key)
            inline = entry.group(2)
            if inline.startswith("{"):
                keys |= {f"{key}.{inner}" for inner in re.findall(r"(\w+)\s*=", inline)}
    return {_as_schema_key(key) for key in keys}


def prose_keys(page: str) -> set[str]:
    """The dotted keys the hand-written text names in backticks (`job.checkpoint.keep`)."""
    text = page[:page.index(BEGIN)] + page[page.index(END):]
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    pattern = rf"`((?:{'|'.join(TABLES)})\.[\w.-]+)`"
    return {_as_schema_key(key) for key in re.findall(pattern, text)}


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_generated_tables_are_current(page: str) -> None:
    assert page_with_reference(page) == page, (
        "docs/reference/config.md is out of date: run python scripts/make_config_reference.py")


def test_every_key_of_the_schema_is_on_the_page(page: str) -> None:
    missing = (schema_keys() | fleet_keys()) - page_keys(page)
    assert not missing, f"keys missing from the config reference: {sorted(missing)}"
    assert {"maintenance.every", "maintenance.duration", "maintenance.checkpoint_first",
            "failures.NAME.lifetime.mtbf", "network.fabric_lacp.min_links"} <= page_keys(page)


def test_the_page_names_no_key_that_does_not_exist(page: str) -> None:
    known = schema_keys()
    assert page_keys(page) - known - fleet_keys() == set()
    assert example_keys(page) - known == set(), "the TOML example names unknown keys"
    assert prose_keys(page) - known == set(), "the text names unknown keys"
    assert len(example_keys(page)) > 100 and len(prose_keys(page)) > 10  # the parsers read


def test_the_checks_catch_a_missing_table_and_an_invented_key(page: str) -> None:
    start = page.index("### `[maintenance]`")
    without = page[:start] + page[page.index("### `[budget]`"):]
    assert {"maintenance.every", "maintenance.duration"} <= schema_keys() - page_keys(without)
    invented = page.replace("`job.checkpoint.keep`", "`job.checkpoint.kept`", 1)
    assert "job.checkpoint.kept" in prose_keys(invented) - schema_keys()
    typo = page.replace("spares = 0 ", "spare = 0 ", 1)
    assert "job.spare" in example_keys(typo) - schema_keys()


def test_every_key_has_a_description() -> None:
    undescribed = []

    def visit(model: type[BaseModel], prefix: str) -> None:
        for name, field in model.model_fields.items():
            if not (field.description or "").strip():
                undescribed.append(prefix + name)
            for inner, many in _held(field.annotation):
                visit(inner, f"{prefix}{name}.{NAME}." if many else f"{prefix}{name}.")

    visit(schema.RelplanConfig, "")
    assert undescribed == []
