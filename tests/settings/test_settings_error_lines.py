"""Settings errors name the file, the line and the key (`settings.file.key_line`), through the CLI
on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.settings.file import key_line


@pytest.mark.parametrize(
    ("text", "table", "settings", "message"),
    [
        (
            "# settings\n[migrations]\npostgress_version = 14\n",
            False,
            ".release-safety.toml",
            ".release-safety.toml, line 3: key 'migrations.postgress_version': unknown key",
        ),
        (
            '[rules]\noff = [\n  "drop-column",\n  1,\n]\n',
            False,
            ".release-safety.toml",
            ".release-safety.toml, line 2: key 'rules.off.1': Input should be a valid string",
        ),
        (
            '[project]\nname = "x"\n\n[tool.release-safety.migrations]\nnope = 1\n',
            True,
            "pyproject.toml",
            "pyproject.toml [tool.release-safety], line 5: key 'migrations.nope': unknown key",
        ),
    ],
)
def test_a_settings_error_names_file_line_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    table: bool,
    settings: str,
    message: str,
) -> None:
    (tmp_path / settings).write_text(text, encoding="utf-8")
    (tmp_path / "001.sql").write_text("CREATE TABLE t (id int);\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert run(["lint-migrations", "001.sql"]) == 2
    assert message in capsys.readouterr().err


def test_key_line_takes_dotted_keys_and_the_nearest_holder() -> None:
    text = '[config]\nsources.path = "a"\n[rules]\n"off" = ["x"]\n'
    assert key_line(text, ["config", "sources", "path"]) == 2
    assert key_line(text, ["rules", "off", 0]) == 4
    assert key_line(text, ["rules"]) == 3
    assert key_line(text, ["deployment", "sources"]) is None
    assert key_line("[tool.other]\nx = 1\n", ["x"], ("tool", "release-safety")) is None
