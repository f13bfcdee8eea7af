"""Hostile round 4, class 5 (issue 45): config readers the tool did not model and did not call
unknown. `import.meta.env`, `Bun.env` and `Deno.env.get` are read like `process.env`; Go's
`os.Environ()` scanned by prefix is a blocking gap like `Object.entries(process.env)`; an
external `$ref` of a config JSON Schema is read (or unknown when it cannot be). Each firing
probe has a quiet twin."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]
Seen = Callable[..., list[tuple[str, str]]]

READERS = {
    "import-meta": ("src/env.ts", "export const port = import.meta.env.PORT ?? '3000';\n"),
    "bun": ("src/env.ts", "export const port = Bun.env.PORT ?? '3000';\n"),
    "deno": ("src/env.ts", "export const port = Deno.env.get('PORT') ?? '3000';\n"),
    "deno-js": ("src/env.js", "export const port = Deno.env.get(\"PORT\") ?? '3000';\n"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_default_changed_through_another_runtime_is_seen(seen: Seen, reader: str) -> None:
    path, text = READERS[reader]
    found = seen({path: text}, {path: text.replace("'3000'", "'8080'")}, [path])
    assert found == [("config-default-changed", "env var `PORT` default changed `3000` → `8080`")]


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_variable_no_longer_read_through_another_runtime_is_removed(
    seen: Seen, reader: str
) -> None:
    path, text = READERS[reader]
    kept = "export const host = process.env.HOST;\n"
    found = seen({path: text + kept}, {path: kept}, [path])
    assert [rule for rule, _ in found] == ["config-var-removed"]
    assert seen({path: text + kept}, {path: kept + text}, [path]) == []


@pytest.mark.parametrize(
    "copy",
    [
        "const all = Deno.env.toObject();\n",
        "const name = pick();\nexport const v = Deno.env.get(name);\n",
        "for (const [k, v] of Object.entries(Bun.env)) use(k, v);\n",
        "const all = { ...import.meta.env };\n",
    ],
)
def test_a_whole_or_computed_read_through_another_runtime_is_unknown(
    judge: Judge, copy: str
) -> None:
    base = "export const port = process.env.PORT ?? '3000';\n"
    report = judge({"src/env.ts": base}, {"src/env.ts": base + copy}, ["src/env.ts"])
    assert "config-read-not-understood" in [f.rule for f in report.findings]


GO = """\
package config

import (
\t"os"
\t"strings"
)

func Load() map[string]string {
\tport := os.Getenv("PORT")
\t_ = port
\treturn nil
}
"""
SCAN = """\
package config

import (
\tsys "os"
\t"strings"
)

func Load() map[string]string {
\tport := sys.Getenv("PORT")
\t_ = port
\tfound := map[string]string{}
\tfor _, pair := range sys.Environ() {
\t\tif strings.HasPrefix(pair, "APP_") {
\t\t\tk, v, _ := strings.Cut(pair, "=")
\t\t\tfound[k] = v
\t\t}
\t}
\treturn found
}
"""
CHILD = """\
package config

import (
\t"os"
\t"os/exec"
)

func Load() {
\tport := os.Getenv("PORT")
\tcmd := exec.Command("worker")
\tcmd.Env = append(os.Environ(), "PORT="+port)
\t_ = cmd.Run()
}
"""


def test_go_scanning_os_environ_by_prefix_is_unknown(judge: Judge) -> None:
    report = judge({"config/load.go": GO}, {"config/load.go": SCAN}, ["config/**/*.go"])
    assert report.checked is False
    [gap] = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert (gap.file, gap.line) == ("config/load.go", 12)
    assert "os.Environ" in gap.message


def test_go_passing_os_environ_to_a_child_process_is_quiet(seen: Seen) -> None:
    assert seen({"config/load.go": GO}, {"config/load.go": CHILD}, ["config/**/*.go"]) == []


SCHEMA = """\
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "port": {"$ref": "defs.json#/$defs/port"},
    "host": {"type": "string", "default": "0.0.0.0"}
  }
}
"""
DEFS = '{"$defs": {"port": {"type": "integer", "maximum": 65535, "default": 8080}}}\n'


def test_an_external_ref_of_a_config_schema_is_read(judge: Judge) -> None:
    old = {"config/schema.json": SCHEMA, "config/defs.json": DEFS}
    narrowed = {"config/defs.json": DEFS.replace("65535", "1024")}
    report = judge(old, narrowed, ["config/schema.json"])
    assert [(f.rule, f.file, f.line) for f in report.findings] == [
        ("config-constraint-narrowed", "config/schema.json", 5)
    ]
    assert "PORT" in report.findings[0].message


def test_an_external_ref_unchanged_is_quiet(judge: Judge) -> None:
    old = {"config/schema.json": SCHEMA, "config/defs.json": DEFS}
    report = judge(old, {"README.md": "x\n"}, ["config/schema.json"])
    assert report.checked is True, report.reason
    assert report.findings == []


def test_an_external_ref_to_a_missing_file_is_unknown_when_the_schema_changes(
    judge: Judge,
) -> None:
    old = {"config/schema.json": SCHEMA, "config/defs.json": DEFS}
    new = {"config/schema.json": SCHEMA.replace("0.0.0.0", "127.0.0.1"), "config/defs.json": None}
    report = judge(old, new, ["config/schema.json"])
    assert "config-read-not-understood" in [f.rule for f in report.findings]


CONDITIONAL = """\
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "driver": {"type": "string", "default": "sqlite"},
    "dsn": {"type": "string"},
    "timeout": {"type": "integer", "default": 30}
  },
  "if": {"properties": {"driver": {"const": "postgres"}}},
  "then": {"required": ["dsn"]}
}
"""


def test_an_unchanged_if_then_does_not_hide_a_release(seen: Seen) -> None:
    old = {"config/schema.json": CONDITIONAL}
    new = {"config/schema.json": CONDITIONAL.replace('"default": 30', '"default": 60')}
    found = seen(old, new, ["config/schema.json"])
    assert [rule for rule, _ in found] == ["config-default-changed"]


def test_an_if_then_that_changes_is_unknown(judge: Judge) -> None:
    old = {"config/schema.json": CONDITIONAL}
    new = {"config/schema.json": CONDITIONAL.replace('["dsn"]', '["dsn", "timeout"]')}
    report = judge(old, new, ["config/schema.json"])
    assert report.checked is False
    assert "config-read-not-understood" in [f.rule for f in report.findings]


ORY = """\
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "tracing": {"$ref": "ory://tracing-config"},
    "host": {"type": "string", "default": "0.0.0.0"}
  }
}
"""
TRACING = (
    '{"$id": "ory://tracing-config", "type": "object", "properties": '
    '{"provider": {"type": "string", "enum": ["jaeger", "otel"], "default": "otel"}}}\n'
)


def test_an_ory_reference_vendored_and_named_is_read_as_part_of_the_schema(seen: Seen) -> None:
    old = {"config/schema.json": ORY, "vendor/ory/tracing.schema.json": TRACING}
    sources = ["config/schema.json", "vendor/ory/tracing.schema.json"]
    new = {"config/schema.json": ORY.replace("0.0.0.0", "127.0.0.1")}
    assert [rule for rule, _ in seen(old, new, sources)] == ["config-default-changed"]
    narrowed = {"vendor/ory/tracing.schema.json": TRACING.replace('"jaeger", ', "")}
    found = seen(old, narrowed, sources)
    assert [rule for rule, _ in found] == ["config-constraint-narrowed"]
    assert "TRACING_PROVIDER" in found[0][1]


def test_an_ory_reference_not_vendored_is_unknown_with_the_way_out(judge: Judge) -> None:
    old = {"config/schema.json": ORY}
    new = {"config/schema.json": ORY.replace("0.0.0.0", "127.0.0.1")}
    report = judge(old, new, ["config/schema.json"])
    assert report.checked is False
    [gap] = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert gap.hint is not None and "`$id` is `ory://tracing-config`" in gap.hint
