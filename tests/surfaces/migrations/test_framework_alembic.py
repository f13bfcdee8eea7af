"""Alembic revisions read as Alembic runs them: the SQL it emits for PostgreSQL (checked against
fixtures/frameworks/alembic, captured with `alembic upgrade --sql`), `upgrade()` only, in the
order of the `down_revision` chain; the real CLI on real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.alembic import extract_alembic
from release_safety.surfaces.migrations.frameworks.order import alembic_order

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/alembic/versions"


def _plain(sql: str) -> str:
    return " ".join(sql.split()).replace("( ", "(").replace(" )", ")")


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.py")))
def test_the_sql_is_the_sql_alembic_emits(name: str) -> None:
    expected = [_plain(sql) for sql in captured(FIXTURES / f"{name}.sql")]
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


SETTINGS = '[[migrations.sources]]\npath = "alembic/versions"\nformat = "alembic"\n' + ABSENT
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
    first = {".release-safety.toml": SETTINGS, "alembic/versions/f00d_init.py": INIT}
    return judged(make_repo, tmp_path, name, first, files)


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


GUID = """\
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.types import CHAR, DateTime, TypeDecorator


class GUID(TypeDecorator):
    impl = CHAR

    def load_dialect_impl(self, dialect):
        if dialect.name == "postgresql":
            return dialect.type_descriptor(UUID())
        return dialect.type_descriptor(CHAR(32))


class Naive(TypeDecorator):
    impl = DateTime
"""


def test_a_column_type_of_the_services_own_is_read_where_it_is_defined() -> None:
    modules = {
        "app/db/types.py": "from app.db.guid import GUID, Naive  # noqa: F401\n",
        "app/db/guid.py": GUID,
    }
    body = (
        "    op.add_column('users', sa.Column('key', app.db.types.GUID(), nullable=True))\n"
        "    op.add_column('users', sa.Column('seen', Naive(), nullable=True))\n"
        "    with op.batch_alter_table('users') as batch_op:\n"
        "        batch_op.create_index(batch_op.f('ix_users_key'), ['key'])\n"
        "    op.add_column('users', sa.Column('other', Missing(), nullable=True))"
    )
    head = "import app.db.types\nfrom app.db.guid import Naive\nfrom elsewhere import Missing\n"
    extracted = extract_alembic(
        head + _revision("r", None, body), "v/r.py", read_module=modules.get
    )
    assert [s.sql or s.reason for s in extracted.statements] == [
        "ALTER TABLE users ADD COLUMN key UUID",
        "ALTER TABLE users ADD COLUMN seen TIMESTAMP WITHOUT TIME ZONE",
        "CREATE INDEX ix_users_key ON users (key)",
        "alembic: the type `Missing()`, not modelled",
    ]
