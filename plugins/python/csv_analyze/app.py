"""csv_analyze: describe, aggregate and query CSV files from the mounted /data directory.

Grant the directory in the policy file:

    [[plugins.csv_analyze.mounts]]
    host = "data"
    guest = "/data"
"""

import csv
import os
from dataclasses import dataclass
from typing import Annotated, Literal, Optional

from mcp_wasm_sdk import Failed, InvalidArguments, Tools, log, tool  # noqa: F401 (Tools is the export)

DATA = "/data"
Path = Annotated[str, "The CSV file's path inside /data, e.g. `sales.csv`."]


def read_rows(path: str) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of a CSV file under /data."""
    try:
        with open(os.path.join(DATA, path), newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
    except FileNotFoundError:
        raise Failed(f"no such file in {DATA}: {path}") from None
    log.info(f"read {len(rows)} rows from {path}")
    return list(reader.fieldnames or []), rows


def number(value: str) -> Optional[float]:
    try:
        return float(value)
    except ValueError:
        return None


def infer(values: list[str]) -> str:
    filled = [v for v in values if v != ""]
    if not filled:
        return "empty"
    if all(v.lstrip("+-").isdigit() for v in filled):
        return "integer"
    if all(number(v) is not None for v in filled):
        return "number"
    if all(v.lower() in ("true", "false") for v in filled):
        return "boolean"
    return "string"


def check_columns(header: list[str], *names: Optional[str]) -> None:
    for name in names:
        if name is not None and name not in header:
            raise InvalidArguments(f"no column {name!r}; the columns are {header}")


def matching(rows: list[dict[str, str]], where: dict[str, str]) -> list[dict[str, str]]:
    return [r for r in rows if all(r.get(k) == v for k, v in where.items())]


@dataclass
class Column:
    name: str
    type: Literal["integer", "number", "boolean", "string", "empty"]
    empty: Annotated[int, "Rows where the column is empty."]


@dataclass
class Description:
    rows: int
    columns: list[Column]


@tool(title="Describe a CSV file", read_only=True, idempotent=True, open_world=False)
def csv_describe(path: Path) -> Description:
    """Lists a CSV file's columns with their inferred types, and counts its rows."""
    header, rows = read_rows(path)
    columns = [
        Column(name, infer([r[name] or "" for r in rows]), sum(1 for r in rows if not r[name]))
        for name in header
    ]
    return Description(len(rows), columns)


@dataclass
class Group:
    key: Optional[str]
    value: float
    rows: int


@tool(title="Aggregate a CSV column", read_only=True, idempotent=True, open_world=False)
def csv_aggregate(
    path: Path,
    column: str,
    op: Literal["sum", "avg", "min", "max", "count"],
    group_by: Optional[str] = None,
    where: Optional[dict[str, str]] = None,
) -> list[Group]:
    """Computes the sum, average, minimum, maximum or count of a column, optionally per group.

    Args:
        column: The column to aggregate (numeric unless `op` is count); empty cells are skipped.
        op: The aggregate function.
        group_by: A column whose distinct values form the groups.
        where: Only rows whose columns equal these values, e.g. {"region": "EU"}.
    """
    header, rows = read_rows(path)
    check_columns(header, column, group_by, *(where or {}))
    groups: dict[Optional[str], list[float]] = {}
    for row in matching(rows, where or {}):
        if row[column] == "":
            continue
        value = 1.0 if op == "count" else number(row[column])
        if value is None:
            raise InvalidArguments(f"column {column!r} is not numeric: {row[column]!r}")
        groups.setdefault(row[group_by] if group_by else None, []).append(value)
    ops = {"sum": sum, "avg": lambda v: sum(v) / len(v), "min": min, "max": max, "count": len}
    return [Group(key, float(ops[op](vals)), len(vals)) for key, vals in groups.items()]


@tool(title="Query a CSV file", read_only=True, idempotent=True, open_world=False)
def csv_query(
    path: Path,
    where: Annotated[Optional[dict[str, str]], "Only rows whose columns equal these values."] = None,
    columns: Annotated[Optional[list[str]], "The columns to return (default: all)."] = None,
    limit: Annotated[int, {"minimum": 1, "maximum": 1000}] = 20,
) -> list[dict[str, str]]:
    """Returns the rows of a CSV file that match equality filters, as objects keyed by column."""
    header, rows = read_rows(path)
    check_columns(header, *(where or {}), *(columns or []))
    picked = matching(rows, where or {})[:limit]
    return [{c: r[c] for c in (columns or header)} for r in picked]
