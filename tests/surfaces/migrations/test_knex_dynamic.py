"""knex the interpreter cannot follow is unknown, never "no tables" (issue 35 class 4): a
method named at run time, knex destructured or aliased, a branch chosen at run time, `eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from release_safety.cli.main import run

HEAD = "import { Knex } from 'knex';\nexport async function up(knex: Knex): Promise<void> {\n"


def linted(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str) -> dict:
    path = tmp_path / "20240101120000_hostile.ts"
    path.write_text(HEAD + body + "}\n")
    run(["lint-migrations", "--json", str(path)])
    report: dict = json.loads(capsys.readouterr().out)["files"][0]
    return report


def rules(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


@pytest.mark.parametrize(
    "body",
    [
        "  const m = 'dropTable';\n  await knex.schema[m]('users');\n",
        "  await knex['schema'].dropTable('users');\n",
        "  const { schema } = knex;\n  await schema.dropTable('users');\n",
        "  const s = knex.schema;\n  await s.dropTable('users');\n",
        "  await (process.env.X ? knex.schema.dropTable('users') : knex.raw('select 1'));\n",
    ],
    ids=["computed-name-known", "bracket-access", "destructured", "aliased", "ternary"],
)
def test_a_drop_written_another_way_is_still_a_drop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    report = linted(tmp_path, capsys, body)
    assert report["tables"] == ["users"]
    assert "drop-table" in rules(report)


@pytest.mark.parametrize(
    "body",
    [
        "  await knex.schema[process.env.M as string]('users');\n",
        "  const { dropTable } = knex.schema;\n  await dropTable('users');\n",
        "  eval(\"knex.schema.dropTable('users')\");\n",
        "  await new Function('k', \"return k.schema.dropTable('users')\")(knex);\n",
    ],
    ids=["computed-name-at-run-time", "method-taken-out", "eval", "new-function"],
)
def test_knex_that_cannot_be_followed_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str
) -> None:
    report = linted(tmp_path, capsys, body)
    assert "migration-statement-unknown" in rules(report)
    assert report["heaviness"]["locksTable"] == "unknown"
    unknown = next(f for f in report["findings"] if f["rule"] == "migration-statement-unknown")
    assert unknown["line"] >= 3 and "dynamic SQL" in unknown["message"]
