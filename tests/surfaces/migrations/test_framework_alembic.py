"""Alembic revisions read as Alembic runs them: the SQL it emits for PostgreSQL (checked against
fixtures/frameworks/alembic, captured with `alembic upgrade --sql`), `upgrade()` only, in the
order of the `down_revision` chain; the real CLI on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.alembic import extract_alembic
from release_safety.surfaces.migrations.frameworks.order import alembic_order
from release_safety.surfaces.migrations.sql.sqlfile import split_sql

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/alembic/versions"


def _plain(sql: str) -> str:
    return " ".join(sql.split()).replace("( ", "(").replace(" )", ")")


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.py")))
def test_the_sql_is_the_sql_alembic_emits(name: str) -> None:
    captured = (FIXTURES / f"{name}.sql").read_text()
    expected = [_plain(s.sql) for s in split_sql(captured) if s.sql]
    extracted = extract_alembic((FIXTURES / f"{name}.py").read_text(), f"versions/{name}.py")
    assert [_plain(s.sql or f"unknown: {s.reason}") for s in extracted.statements] == expected
    assert extracted.transactional


def _revision(rev: str, down: str | tuple[str, ...] | None, body: str) -> str:
    return (
        "import sqlalchemy as sa\nfrom alembic import op\n\n"
        f"revision = {rev!r}\ndown_revision = {down!r}\n\n\n"
        f"def upgrade():\n{body}\n\ndef downgrade():\n    op.drop_table('users')\n"
    )


def test_revisions_run_in_the_order_of_their_chain_not_their_names() -> None:
    texts = {
        "v/zz_first.py": _revision("aa", None, "    pass"),
        "v/mm_merge.py": _revision("cc", ("bb", "dd"), "    pass"),
        "v/aa_second.py": _revision("bb", "aa", "    pass"),
        "v/bb_branch.py": _revision("dd", "aa", "    pass"),
    }
    order = alembic_order(texts)
    assert sorted(order, key=order.__getitem__) == [
        "v/zz_first.py",
        "v/aa_second.py",
        "v/bb_branch.py",
        "v/mm_merge.py",
    ]


SETTINGS = (
    "[[migrations.sources]]\n"
    'path = "alembic/versions"\n'
    'format = "alembic"\n'
    '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[rest]\nabsent = "the service has no HTTP API of its own"\n'
    '[config]\nabsent = "configuration lives in the database, edited in the UI"\n'
    '[deployment]\nabsent = "operators run it from their own manifests; none ship"\n'
)
INIT = _revision(
    "f00d",
    None,
    "    op.create_table('users', sa.Column('id', sa.Integer(), primary_key=True),\n"
    "                    sa.Column('name', sa.String(50)), sa.Column('email', sa.Text()))",
)
# named to sort before the first revision: the chain, not the name, puts it after
ADDED = "alembic/versions/0a_change.py"


def _evidence(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, files: dict, name: str
) -> dict:
    repo = make_repo(name)
    repo.release("1.0.0", {".release-safety.toml": SETTINGS, "alembic/versions/f00d_init.py": INIT})
    repo.release("1.1.0", files)
    evidence = tmp_path / f"{name}.evidence.json"
    args = [
        "generate",
        "--repo",
        str(repo.path),
        "--to",
        "1.1.0",
        "--out",
        str(tmp_path / "a.json"),
    ]
    run([*args, "--evidence", str(evidence)])
    return json.loads(evidence.read_text())


CASES = {
    # a column the previous release reads, dropped: breaking, at its line
    "drop": ("    op.drop_column('users', 'name')", False, ("drop-column", 9)),
    # a nullable column added: safe
    "add": ("    op.add_column('users', sa.Column('nick', sa.Text()))", True, None),
    # the connection's own SQL is known only when it runs: unknown, naming the call
    "bind": ("    op.get_bind().execute(sa.text('DELETE FROM users'))", "unknown", None),
    # a concurrent index in Alembic's transaction fails; in an autocommit block it runs
    "concurrent": (
        "    op.create_index('ix_email', 'users', ['email'], postgresql_concurrently=True)",
        False,
        None,
    ),
    "autocommit": (
        "    with op.get_context().autocommit_block():\n"
        "        op.create_index('ix_email', 'users', ['email'], postgresql_concurrently=True)",
        True,
        None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_revision_is_judged_by_what_its_upgrade_emits(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    body, safe, finding = CASES[case]
    evidence = _evidence(make_repo, tmp_path, {ADDED: _revision("beef", "f00d", body)}, case)
    assert evidence["rollingUpdateSafe"] == safe, evidence["because"]
    if finding is not None:
        assert [(f["rule"], f["line"]) for f in evidence["because"]] == [finding]
    if safe == "unknown":
        [blocking] = evidence["because"]
        assert "op.get_bind().execute" in blocking["message"] and blocking["line"] == 9


def test_a_release_adding_no_revision_is_judged(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    evidence = _evidence(make_repo, tmp_path, {"README.md": "no schema change\n"}, "none")
    assert evidence["rollingUpdateSafe"] is True, evidence["because"]
