"""The core commands end to end, on real git repositories."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.contract.schemas import schema_text, validate_document
from release_safety.git.builder import RepoBuilder
from release_safety.release import generate

ROOT = Path(__file__).resolve().parents[2]


# A database-only service: it says so, so its verdicts rest on its migrations alone.
DATABASE_ONLY = """\
[rest]
absent = "the service has no HTTP API; it is a queue worker"
[mcp]
absent = "the service exposes no MCP tools to agents"
[config]
absent = "all configuration comes from the database, not the environment"
[deployment]
absent = "operators run the worker from their own manifests; the project ships none"
"""


@pytest.fixture
def service(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    builder = make_repo("service")
    builder.release(
        "1.0.0",
        {
            "db/migrations/001_init.sql": "CREATE TABLE users (id int);\n",
            ".release-safety.toml": DATABASE_ONLY,
        },
    )
    builder.release(
        "1.1.0",
        {
            "db/migrations/002_add.sql": "ALTER TABLE users ADD COLUMN name text;\n",
            "ee/db/migrations/003_billing.sql": "CREATE TABLE billing (id int);\n",
        },
        prefix="v",
    )
    builder.write("db/migrations/001_init.sql", "CREATE TABLE users (id bigint);\n")
    builder.release("1.2.0")
    builder.write("README.md", "next\n").commit("work in progress")
    return builder


def test_schemas_in_repo_match_the_models() -> None:
    for name in ("release-safety", "release-safety-index", "upgrade-check", "evidence"):
        committed = (ROOT / "schemas" / f"{name}.schema.json").read_text()
        assert committed == schema_text(name), f"schemas/{name}.schema.json drifted: regenerate"


def test_generate_for_a_tag(
    service: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    code = run(
        [
            "generate",
            "--repo",
            str(service.path),
            "--to",
            "v1.1.0",
            "--out",
            str(out),
            "--evidence",
            str(evidence),
        ]
    )
    assert code == 0
    assert capsys.readouterr().out.strip() == str(out)
    artifact = json.loads(out.read_text())
    validate_document(artifact, "a.json", "release-safety")
    assert (artifact["version"], artifact["previousVersion"]) == ("1.1.0", "1.0.0")
    assert artifact["releaseDate"] == "2025-01-08T09:00:00Z"
    migrations = artifact["migrations"]
    assert (migrations["count"], migrations["coreCount"], migrations["eeCount"]) == (2, 1, 1)
    assert [f["name"] for f in migrations["files"]] == ["002_add.sql", "003_billing.sql"]
    assert artifact["compatibility"] == {
        "rollingUpdateSafe": True,
        "recommendedStrategy": "RollingUpdate",
    }
    findings = json.loads(evidence.read_text())["findings"]
    assert all(f["rule"] and f["severity"] in {"breaking", "unknown", "advisory"} for f in findings)


def test_edited_shipped_migration_is_a_finding(service: RepoBuilder, tmp_path: Path) -> None:
    evidence = tmp_path / "e.json"
    assert (
        run(
            [
                "generate",
                "--repo",
                str(service.path),
                "--to",
                "1.2.0",
                "--out",
                str(tmp_path / "a.json"),
                "--evidence",
                str(evidence),
            ]
        )
        == 0
    )
    rules = {(f["rule"], f["file"]) for f in json.loads(evidence.read_text())["findings"]}
    assert ("shipped-migration-edited", "db/migrations/001_init.sql") in rules


def test_generate_before_the_tag_exists(
    service: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["generate", "--repo", str(service.path), "--to", "HEAD", "--out", "-"]) == 2
    assert "name the release with --version" in capsys.readouterr().err
    assert (
        run(
            [
                "generate",
                "--repo",
                str(service.path),
                "--to",
                "HEAD",
                "--version",
                "1.3.0",
                "--out",
                "-",
            ]
        )
        == 0
    )
    artifact = json.loads(capsys.readouterr().out)
    assert (artifact["version"], artifact["previousVersion"]) == ("1.3.0", "1.2.0")
    to_head = ["generate", "--repo", str(service.path), "--to", "HEAD", "--out", "-"]
    assert run([*to_head, "--version", "v1.3.0"]) == 0  # a tag's `v`: the same release
    assert json.loads(capsys.readouterr().out)["version"] == "1.3.0"


def test_a_settings_file_outside_the_repository_is_named_never_by_its_local_path(
    service: RepoBuilder, tmp_path: Path
) -> None:
    outside = tmp_path / "ci" / "release-safety.ci.toml"
    outside.parent.mkdir()
    outside.write_text(DATABASE_ONLY + "[rules]\noff = ['lock-timeout-missing']\n")
    out, evidence, notes = tmp_path / "a.json", tmp_path / "e.json", tmp_path / "n.md"
    args = ["generate", "--repo", str(service.path), "--to", "v1.1.0", "--config", str(outside)]
    args += ["--out", str(out), "--evidence", str(evidence), "--notes", str(notes)]
    assert run(args) == 0
    label = "--config release-safety.ci.toml (outside the repository)"
    for written in (out, evidence, notes):
        text = written.read_text()
        assert str(tmp_path) not in text and str(Path.home()) not in text, written.name
        assert "None" not in text, written.name
    assert f"rest surface declared absent in {label} ([rest] absent)" in out.read_text()
    findings = json.loads(evidence.read_text())["findings"]
    named = [f for f in findings if label in f["message"]]
    assert {f["rule"] for f in named} == {
        "surface-declared-absent",
        "rule-turned-off",
        "settings-adopted",
    }
    assert all((f["file"], f["line"]) == (None, None) for f in named)
    assert f"declared absent in {label}" in notes.read_text()


def test_generate_is_deterministic(service: RepoBuilder, tmp_path: Path) -> None:
    first, second = tmp_path / "1.json", tmp_path / "2.json"
    for out in (first, second):
        assert (
            run(["generate", "--repo", str(service.path), "--to", "v1.1.0", "--out", str(out)]) == 0
        )
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--to", "v9.9.9"], 2, "no such ref"),
        (["--to", "1.2.0", "--version", "1.2.1"], 2, "disagrees"),
        (["--to", "1.2.0", "--config", "missing.toml"], 2, "cannot read settings"),
    ],
)
def test_generate_bad_input(
    service: RepoBuilder,
    args: list[str],
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["generate", "--repo", str(service.path), *args]) == code
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_generate_outside_a_repository_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["generate", "--repo", str(tmp_path), "--to", "HEAD"]) == 3
    assert "not a git repository" in capsys.readouterr().err


def test_bad_settings_file_in_repository(
    service: RepoBuilder, capsys: pytest.CaptureFixture[str]
) -> None:
    service.write(".release-safety.toml", "[rest]\nspec = 'x'\n").commit("typo")
    service.tag("1.3.0")
    assert run(["generate", "--repo", str(service.path), "--to", "1.3.0", "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert ".release-safety.toml at 1.3.0, line 2: key 'rest.spec': unknown key" in err


def _artifact(service: RepoBuilder, tmp_path: Path, ref: str, name: str, *extra: str) -> Path:
    out = tmp_path / name
    assert (
        run(["generate", "--repo", str(service.path), "--to", ref, "--out", str(out), *extra]) == 0
    )
    return out


def test_index_update_rules(
    service: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.json"
    for ref in ("1.2.0", "1.0.0", "v1.1.0"):
        artifact = _artifact(service, tmp_path, ref, f"{ref}.json")
        # the floor must be an indexed release: named from the floor release's own update on
        floor = [] if ref == "1.2.0" else ["--floor", "v1.0.0" if ref == "v1.1.0" else "1.0.0"]
        update = ["index", "update", "--index", str(index), "--artifact", str(artifact)]
        assert run([*update, *floor]) == 0
    data = json.loads(index.read_text())
    validate_document(data, "index", "release-safety-index")
    assert data["backfillFloorVersion"] == "1.0.0"
    assert [e["version"] for e in data["entries"]] == ["1.0.0", "1.1.0", "1.2.0"]
    assert (
        data["entries"][0]["requiredStops"] == ["1.0.0"]
        and data["entries"][0]["syntheticRequiredStop"]
    )
    assert data["entries"][2]["previousVersion"] == "1.1.0"
    before = index.read_bytes()
    preview = _artifact(service, tmp_path, "HEAD", "pr.json", "--version", "pr-123")
    capsys.readouterr()
    assert run(["index", "update", "--index", str(index), "--artifact", str(preview)]) == 0
    assert "not a release version" in capsys.readouterr().out
    assert index.read_bytes() == before


def test_index_update_refuses_a_malformed_index(
    service: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index.json"
    index.write_text('{"schemaVersion": "1", "entries": "nope"}\n')
    artifact = _artifact(service, tmp_path, "1.2.0", "a.json")
    capsys.readouterr()
    assert run(["index", "update", "--index", str(index), "--artifact", str(artifact)]) == 2
    assert "not a valid index" in capsys.readouterr().err
    assert index.read_text() == '{"schemaVersion": "1", "entries": "nope"}\n'


def test_index_update_rejects_a_bad_artifact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = tmp_path / "a.json"
    artifact.write_text(json.dumps({"schemaVersion": "2", "version": "1.0.0"}))
    assert (
        run(["index", "update", "--index", str(tmp_path / "i.json"), "--artifact", str(artifact)])
        == 2
    )
    assert "not a valid release-safety document" in capsys.readouterr().err
    assert not (tmp_path / "i.json").exists()
    assert (
        run(
            [
                "index",
                "update",
                "--index",
                str(tmp_path / "i.json"),
                "--artifact",
                str(tmp_path / "none.json"),
            ]
        )
        == 3
    )


def test_validate_names_the_failing_path(
    service: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = _artifact(service, tmp_path, "1.2.0", "a.json")
    capsys.readouterr()
    assert run(["validate", str(artifact)]) == 0
    data = json.loads(artifact.read_text())
    data["api"]["rest"]["breaking"] = "maybe"
    artifact.write_text(json.dumps(data))
    assert run(["validate", str(artifact)]) == 2
    assert "api.rest.breaking" in capsys.readouterr().err


def test_validate_accepts_an_evidence_file_and_names_what_breaks_one(
    service: RepoBuilder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evidence = tmp_path / "evidence.json"
    _artifact(service, tmp_path, "1.2.0", "a.json", "--evidence", str(evidence))
    capsys.readouterr()
    assert run(["validate", str(evidence)]) == 0
    assert capsys.readouterr().out == f"{evidence}: valid evidence\n"
    data = json.loads(evidence.read_text())
    assert data["findings"], "the release has findings to break"
    data["findings"][0]["severity"] = "fatal"
    evidence.write_text(json.dumps(data))
    assert run(["validate", str(evidence)]) == 2
    err = capsys.readouterr().err
    assert "not a valid evidence file: findings.0.severity" in err and len(err.splitlines()) == 1
    del data["findings"][0]["hint"]
    data["findings"][0]["severity"] = "breaking"
    evidence.write_text(json.dumps(data))
    assert run(["validate", str(evidence)]) == 2
    assert "findings.0.hint: missing" in capsys.readouterr().err


def test_schema_command_and_json_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["schema", "upgrade-check"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "UpgradeCheckResult"
    assert run(["schema", "nope"]) == 2
    assert run(["rules", "--json"]) == 0
    ids = [r["id"] for r in json.loads(capsys.readouterr().out)]
    assert "shipped-migration-edited" in ids and len(ids) == len(set(ids))


def test_a_blob_git_cannot_read_leaves_only_its_surface_unchecked(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    builder = make_repo("partial")
    spec = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n"
    no_mcp_nor_config = DATABASE_ONLY.split("[mcp]", 1)[1]
    builder.release(
        "1.0.0",
        {
            "openapi.yaml": spec,
            "db/migrations/001.sql": "SELECT 1;\n",
            ".release-safety.toml": "[mcp]" + no_mcp_nor_config,
        },
    )
    builder.release("1.1.0", {"openapi.yaml": spec + "# edited\n"})
    blob = builder.git("rev-parse", "1.1.0:openapi.yaml")
    (builder.path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a partial clone
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(builder.path), "--to", "1.1.0", "--out", str(out)]
    assert run([*args, "--evidence", str(evidence)]) == 0
    artifact = json.loads(out.read_text())
    assert artifact["api"]["rest"]["checked"] is False
    assert artifact["api"]["mcp"]["checked"] is True
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    surfaces = {s["surface"]: s for s in json.loads(evidence.read_text())["surfaces"]}
    assert blob in surfaces["rest"]["reason"]


def test_a_crash_writes_no_artifact_and_prints_none(
    service: RepoBuilder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An analyser's bug is could not check in one line: no artifact is printed, and the file
    at --out is not touched (a new one is not written, an older one stays as it was)."""
    out, new = tmp_path / "release-safety.json", tmp_path / "new.json"
    assert run(["generate", "--repo", str(service.path), "--to", "v1.1.0", "--out", str(out)]) == 0
    before = out.read_text()
    capsys.readouterr()

    def broken(*_: object) -> None:
        raise RuntimeError("analyser bug")

    monkeypatch.setattr(generate, "SNAPSHOT_SURFACES", [("rest", broken)])
    for target in (out, new):
        args = ["generate", "--repo", str(service.path), "--to", "v1.1.0", "--out", str(target)]
        assert run(args) == 3
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.count("\n") == 1 and "analyser bug" in captured.err
    assert out.read_text() == before and not new.exists()
    assert not list(tmp_path.glob(".*.tmp"))
