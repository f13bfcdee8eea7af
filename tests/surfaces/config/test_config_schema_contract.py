"""A JSON Schema that defines the configuration, judged as a contract on two real releases:
keys are variables named by the service's rule, and what they may hold is compared with the
project's JSON-Schema engine (narrowed: breaking; widened or reworded: safe)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.surfaces.config.conftest import Judge

SOURCE = {"path": "config.schema.json", "env_prefix": "APP_"}


def _schema(**changes: Any) -> dict[str, Any]:
    """A configx-style schema; `changes` replace properties of `serve.public` or the root."""
    public: dict[str, Any] = {
        "type": "object",
        "properties": {
            "port": {"type": "integer", "default": 4433, "maximum": 65535},
            "base_url": {"type": "string", "format": "uri", "description": "the public URL"},
        },
    }
    root: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "$defs": {"level": {"type": "string", "enum": ["trace", "debug", "info"]}},
        "properties": {
            "serve": {"type": "object", "properties": {"public": public}},
            "log": {
                "type": "object",
                "properties": {
                    "level": {"$ref": "#/$defs/level", "default": "info"},
                    "format": {"type": "string", "examples": ["json"]},
                },
            },
            "dsn": {"type": "string"},
        },
    }
    for key, value in changes.items():
        if key in public["properties"]:
            public["properties"][key] = value
        elif key == "log":
            root["properties"]["log"]["properties"]["format"]["examples"] = ["text"]
        elif key == "level":
            root["$defs"]["level"] = value
        else:
            root[key] = value
    return root


def _files(schema: dict[str, Any], indent: int = 2) -> dict[str, str | None]:
    return {"config.schema.json": json.dumps(schema, indent=indent) + "\n"}


def _verdict(judge: Judge, new: dict[str, Any], indent: int = 2) -> tuple[bool, list[str]]:
    report = judge(_files(_schema()), _files(new, indent), [SOURCE])
    assert report.checked is True, report.reason
    breaking = [f.rule for f in report.findings if f.severity == "breaking"]
    return not breaking, breaking


def test_keys_are_variables_named_by_the_rule_with_their_lines(judge: Judge) -> None:
    report = judge(_files(_schema()), _files(_schema()), [SOURCE])
    assert report.coverage is not None
    text = json.dumps(_schema(), indent=2).splitlines()

    def at(key: str) -> str:
        opened = json.dumps(key) + ": {"
        return f"config.schema.json:{max(i for i, t in enumerate(text, 1) if opened in t)}"

    assert report.coverage.understood == {
        "APP_DSN": at("dsn"),
        "APP_LOG_FORMAT": at("format"),
        "APP_LOG_LEVEL": at("level"),
        "APP_SERVE_PUBLIC_BASE_URL": at("base_url"),
        "APP_SERVE_PUBLIC_PORT": at("port"),
    }


def test_a_removed_key_is_false(judge: Judge) -> None:
    new = _schema()
    del new["properties"]["dsn"]
    assert _verdict(judge, new) == (False, ["config-var-removed"])


def test_a_changed_default_is_false(judge: Judge) -> None:
    new = _schema(port={"type": "integer", "default": 8080, "maximum": 65535})
    assert _verdict(judge, new) == (False, ["config-default-changed"])


def test_a_key_made_required_without_default_is_false(judge: Judge) -> None:
    assert _verdict(judge, _schema(required=["dsn"])) == (False, ["config-var-became-required"])


@pytest.mark.parametrize(
    "changes",
    [
        {"level": {"type": "string", "enum": ["debug", "info"]}},
        {"port": {"type": "integer", "default": 4433, "maximum": 1024}},
        {"base_url": {"type": "string", "format": "uri", "pattern": "^https://"}},
    ],
    ids=["enum-value-removed", "maximum-lowered", "pattern-added"],
)
def test_a_narrowed_constraint_is_false(judge: Judge, changes: dict[str, Any]) -> None:
    assert _verdict(judge, _schema(**changes)) == (False, ["config-constraint-narrowed"])


def test_a_format_added_is_false_and_names_the_variable_and_key_line(judge: Judge) -> None:
    new = _schema()
    new["properties"]["dsn"] = {"type": "string", "format": "uri"}
    report = judge(_files(_schema()), _files(new), [SOURCE])
    (found,) = report.findings
    assert found.rule == "config-constraint-narrowed"
    text = json.dumps(new, indent=2).splitlines()
    assert found.line == next(i for i, line in enumerate(text, 1) if '"dsn"' in line)
    assert "APP_DSN" in found.message and "APP_DSN" in (found.hint or "")
    assert "`dsn`" in (found.hint or "")


@pytest.mark.parametrize(
    "changes",
    [
        {"base_url": {"type": "string", "description": "the public URL"}},
        {"level": {"type": "string", "enum": ["trace", "debug", "info", "warn"]}},
        {"base_url": {"type": "string", "format": "uri", "description": "where users go"}},
        {"log": {"type": "object", "properties": {"format": {"examples": ["text"]}}}},
    ],
    ids=["format-dropped", "enum-value-added", "description-edited", "example-edited"],
)
def test_a_widening_or_a_reworded_key_is_true(judge: Judge, changes: dict[str, Any]) -> None:
    assert _verdict(judge, _schema(**changes)) == (True, [])


def test_a_whitespace_reformat_is_true(judge: Judge) -> None:
    assert _verdict(judge, _schema(), indent=4) == (True, [])


def test_a_required_key_added_without_default_is_false(judge: Judge) -> None:
    new = _schema(required=["secret"])
    new["properties"]["secret"] = {"type": "string"}
    assert _verdict(judge, new) == (False, ["config-required-var-added"])


def test_a_change_no_rule_judges_is_unknown(judge: Judge) -> None:
    new = _schema()
    new["properties"]["dsn"] = {"type": "string", "not": {"const": ""}}
    report = judge(_files(_schema()), _files(new), [SOURCE])
    assert report.checked is False
    assert [f.rule for f in report.findings] == ["delta-not-judged"]
    assert "APP_DSN" in (report.findings[0].hint or "")


def test_kind_from_settings_and_separator_name_the_variables(judge: Judge) -> None:
    schema = {"type": "object", "properties": {"db": {"properties": {"url": {"default": "x"}}}}}
    del schema["type"]
    source = {"path": "conf.json", "kind": "jsonschema", "env_separator": "__"}
    files = {"conf.json": json.dumps(schema)}
    report = judge(files, files, [source])
    assert report.coverage is not None
    assert report.coverage.understood == {"DB__URL": "conf.json:1"}


def test_a_yaml_schema_is_recognised_by_its_content(judge: Judge) -> None:
    old = "type: object\nproperties:\n  port:\n    type: integer\n    default: 80\n"
    new = old.replace("80", "81")
    report = judge({"schema.yaml": old}, {"schema.yaml": new}, ["schema.yaml"])
    assert [(f.rule, f.line) for f in report.findings] == [("config-default-changed", 3)]


def test_keys_the_rule_cannot_name_are_a_gap_with_a_way_out(judge: Judge) -> None:
    new = _schema()
    new["properties"]["hooks"] = {"type": "object", "patternProperties": {"^x-": {}}}
    report = judge(_files(_schema()), _files(new), [SOURCE])
    assert report.checked is False
    assert report.coverage is not None
    (gap,) = report.coverage.unmodelled
    assert "`hooks`" in gap.what and "patternProperties" in gap.what
    assert "config-read-not-understood" in [f.rule for f in report.findings]


def test_keys_through_refs_point_at_their_definition_and_recursion_ends(judge: Judge) -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/node"}},
            },
            "level": {"type": "string", "enum": ["debug", "info"], "default": "info"},
        },
        "properties": {"tree": {"$ref": "#/$defs/node"}, "level": {"$ref": "#/$defs/level"}},
    }
    old = json.dumps(schema, indent=2)
    new = old.replace('"debug",', "")
    report = judge({"c.json": old}, {"c.json": new}, [{"path": "c.json", "env_prefix": "K_"}])
    assert report.coverage is not None
    text = old.splitlines()
    level = max(i for i, t in enumerate(text, 1) if '"level": {' in t)
    assert report.coverage.understood["K_LEVEL"] == f"c.json:{level}"
    assert {"K_TREE_NAME", "K_TREE_CHILD"} <= set(report.coverage.understood)
    assert [(f.rule, f.line) for f in report.findings] == [("config-constraint-narrowed", level)]


def test_a_key_defined_in_another_document_is_a_gap_the_release_cannot_pass(judge: Judge) -> None:
    old = _schema()
    old["properties"]["tracing"] = {"$ref": "ory://tracing-config"}
    new = _schema(required=["dsn"])
    new["properties"]["tracing"] = {"$ref": "ory://tracing-config"}
    report = judge(_files(old), _files(new), [SOURCE])
    assert report.checked is False
    assert report.coverage is not None
    (gap,) = report.coverage.unmodelled
    assert "`tracing`" in gap.what and "ory://tracing-config" in gap.what
    assert "APP_TRACING" in gap.way_out
    rules = sorted(f.rule for f in report.findings)
    assert rules == ["config-read-not-understood", "config-var-became-required"]


def test_a_data_file_that_names_its_schema_stays_data(judge: Judge) -> None:
    old = json.dumps({"$schema": "./config.schema.json", "port": 80}, indent=2)
    new = old.replace("80", "81")
    report = judge({"app.json": old}, {"app.json": new}, ["app.json"])
    assert [f.rule for f in report.findings] == ["config-default-changed"]
    assert report.coverage is not None
    assert "port" in report.coverage.understood


@pytest.mark.parametrize("named", [False, True], ids=["inline", "through-ref"])
def test_inside_an_array_a_field_made_required_is_false_at_the_arrays_variable(
    judge: Judge, named: bool
) -> None:
    hook = {"type": "object", "properties": {"url": {"type": "string"}}}
    old = _schema()
    old["$defs"]["hook"] = hook
    items = {"$ref": "#/$defs/hook"} if named else hook
    old["properties"]["hooks"] = {"type": "array", "items": items}
    new = json.loads(json.dumps(old))
    (new["$defs"]["hook"] if named else new["properties"]["hooks"]["items"])["required"] = ["url"]
    report = judge(_files(old), _files(new), [SOURCE])
    assert [(f.rule, "APP_HOOKS" in f.message) for f in report.findings] == [
        ("config-constraint-narrowed", True)
    ]
