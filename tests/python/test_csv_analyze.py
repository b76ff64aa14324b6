"""plugins/python/csv_analyze, built from source with scripts/build-python-plugin.sh
(the SDK in sdk-python/ on its path), served by the real host under a policy
that mounts a temporary directory as /data, and called with the official MCP
Python SDK client."""

from __future__ import annotations

import json
import subprocess

import pytest

from host_session import REPO, run_session, text_of

SALES = """region,product,units,price,paid
EU,apple,10,1.5,true
EU,pear,4,2.25,false
US,apple,7,1.5,true
US,plum,,3.0,true
"""

CALLS = [
    ("csv_describe", {"path": "sales.csv"}),
    ("csv_aggregate", {"path": "sales.csv", "column": "units", "op": "sum", "group_by": "region"}),
    ("csv_aggregate", {"path": "sales.csv", "column": "price", "op": "avg", "where": {"product": "apple"}}),
    ("csv_query", {"path": "sales.csv", "where": {"region": "US"}, "columns": ["product", "units"]}),
    # Bad arguments: one the schema lets through but the tool refuses, one the schema refuses.
    ("csv_aggregate", {"path": "sales.csv", "column": "weight", "op": "sum"}),
    ("csv_aggregate", {"path": "sales.csv", "column": "units", "op": "median"}),
    ("csv_aggregate", {"path": "sales.csv", "column": "product", "op": "max"}),
    # A tool error: the file does not exist.
    ("csv_describe", {"path": "missing.csv"}),
]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    plugins = tmp_path_factory.mktemp("plugins")
    subprocess.run([str(REPO / "scripts" / "build-python-plugin.sh"), str(plugins), "csv_analyze"],
                   check=True, stdout=subprocess.DEVNULL)
    data = tmp_path_factory.mktemp("data")
    (data / "sales.csv").write_text(SALES)
    config = tmp_path_factory.mktemp("config") / "policy.toml"
    config.write_text(f'[[plugins.csv_analyze.mounts]]\nhost = "{data}"\nguest = "/data"\n')
    return run_session(plugins, config, CALLS)


def test_the_three_tools_are_listed_with_titles_and_read_only_annotations(session):
    assert sorted(session.tools) == ["csv_aggregate", "csv_describe", "csv_query"]
    for t in session.tools.values():
        assert t.title and t.description
        a = t.annotations
        assert (a.read_only_hint, a.idempotent_hint, a.open_world_hint) == (True, True, False)
        assert t.input_schema["additionalProperties"] is False
        assert t.output_schema["type"] == "object"


def test_the_input_schema_comes_from_the_type_hints_and_the_docstring(session):
    schema = session.tools["csv_aggregate"].input_schema
    p = schema["properties"]
    assert schema["required"] == ["path", "column", "op"]
    assert p["path"]["type"] == "string" and "/data" in p["path"]["description"]
    assert p["op"] == {"type": "string", "enum": ["sum", "avg", "min", "max", "count"],
                       "description": "The aggregate function."}
    assert p["group_by"]["anyOf"] == [{"type": "string"}, {"type": "null"}] and p["group_by"]["default"] is None
    assert p["where"]["anyOf"] == [{"type": "object", "additionalProperties": {"type": "string"}}, {"type": "null"}]
    assert p["where"]["description"].startswith("Only rows whose columns equal")
    limit = session.tools["csv_query"].input_schema["properties"]["limit"]
    assert limit == {"type": "integer", "minimum": 1, "maximum": 1000, "default": 20}


def test_the_output_schema_comes_from_the_return_annotation(session):
    out = session.tools["csv_describe"].output_schema
    assert out["required"] == ["rows", "columns"]
    column = out["properties"]["columns"]["items"]
    assert column["properties"]["type"]["enum"] == ["integer", "number", "boolean", "string", "empty"]
    groups = session.tools["csv_aggregate"].output_schema
    assert groups["properties"]["result"]["type"] == "array"


def test_describe_infers_column_types_and_counts_rows(session):
    result = session.results[0]
    assert not result.is_error
    assert result.structured_content == {"rows": 4, "columns": [
        {"name": "region", "type": "string", "empty": 0},
        {"name": "product", "type": "string", "empty": 0},
        {"name": "units", "type": "integer", "empty": 1},
        {"name": "price", "type": "number", "empty": 0},
        {"name": "paid", "type": "boolean", "empty": 0},
    ]}
    assert json.loads(text_of(result)) == result.structured_content


def test_aggregate_groups_and_filters(session):
    by_region, apples = session.results[1], session.results[2]
    # The plum row's empty units cell is skipped.
    assert by_region.structured_content == {"result": [
        {"key": "EU", "value": 14.0, "rows": 2}, {"key": "US", "value": 7.0, "rows": 1}]}
    assert apples.structured_content == {"result": [{"key": None, "value": 1.5, "rows": 2}]}


def test_query_returns_the_matching_rows_and_columns(session):
    assert session.results[3].structured_content == {"result": [
        {"product": "apple", "units": "7"}, {"product": "plum", "units": ""}]}


def test_bad_arguments_are_errors_that_name_the_argument(session):
    unknown_column, bad_op, not_numeric = session.results[4:7]
    assert unknown_column.is_error and "no column 'weight'" in text_of(unknown_column)
    assert bad_op.is_error and "op" in text_of(bad_op)
    assert not_numeric.is_error and "'product' is not numeric" in text_of(not_numeric)


def test_a_missing_file_is_a_tool_error(session):
    result = session.results[7]
    assert result.is_error and text_of(result).endswith("failed: no such file in /data: missing.csv")


def test_the_tool_log_reaches_the_client(session):
    messages = [str(m.data) for m in session.logs]
    assert any("read 4 rows from sales.csv" in m for m in messages), messages
    assert all(m.logger.startswith("csv_analyze/") for m in session.logs)
