"""Django migrations read as `migrate` runs them: the SQL its PostgreSQL schema editor emits
(checked against fixtures/frameworks/django, captured with `sqlmigrate`), the model state
rebuilt from the migrations each depends on, the dependency graph's order, squashes, and
`atomic = False`; the real CLI on real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from codereleases import ABSENT, captured, judged

from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.migrations.frameworks.django import extract_django
from release_safety.surfaces.migrations.frameworks.order import django_order

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures/frameworks/django"


def _read(path: str) -> str | None:
    found = FIXTURES / path
    return found.read_text() if found.is_file() else None


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("shop/migrations/0*.py")))
def test_the_sql_is_the_sql_django_emits(name: str) -> None:
    expected = captured(FIXTURES / f"shop/migrations/{name}.sql")
    path = f"shop/migrations/{name}.py"
    extracted = extract_django((FIXTURES / path).read_text(), path, read_module=_read)
    assert [s.sql or f"unknown: {s.reason}" for s in extracted.statements] == expected
    assert extracted.transactional is ("atomic = False" not in (FIXTURES / path).read_text())


def _migration(deps: str, operations: str, head: str = "") -> str:
    return (
        "from django.db import migrations, models\n\n\n"
        f"class Migration(migrations.Migration):\n{head}"
        f"    dependencies = [{deps}]\n\n"
        f"    operations = [\n{operations}    ]\n"
    )


def test_migrations_run_in_their_dependency_order_and_a_present_squash_does_not_run() -> None:
    texts = {
        "a/shop/migrations/0001_initial.py": _migration("", ""),
        "a/shop/migrations/0002_b.py": _migration(
            "('shop', '0001_initial'), ('blog', '0001_x')", ""
        ),
        "a/blog/migrations/0001_x.py": _migration("('shop', '0001_initial')", ""),
        "a/shop/migrations/0001_squashed_0002_b.py": _migration(
            "", "", "    replaces = [('shop', '0001_initial'), ('shop', '0002_b')]\n"
        ),
    }
    order = django_order(texts)
    assert sorted(order, key=order.__getitem__) == [
        "a/shop/migrations/0001_initial.py",
        "a/blog/migrations/0001_x.py",
        "a/shop/migrations/0002_b.py",
    ]


SETTINGS = '[[migrations.sources]]\npath = "shop/migrations"\nformat = "django"\n' + ABSENT
INIT = _migration(
    "",
    "        migrations.CreateModel(\n"
    "            name='Author',\n"
    "            fields=[\n"
    "                ('id', models.BigAutoField(primary_key=True, serialize=False)),\n"
    "                ('name', models.CharField(max_length=100)),\n"
    "                ('bio', models.TextField(null=True)),\n"
    "            ],\n"
    "        ),\n",
)
ADDED = "shop/migrations/0002_change.py"


def _evidence(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, files: dict, name: str
) -> dict:
    initial = {".release-safety.toml": SETTINGS, "shop/migrations/0001_initial.py": INIT}
    first = {**initial, "shop/migrations/__init__.py": ""}
    return judged(make_repo, tmp_path, name, first, files)


DEPENDS = "('shop', '0001_initial')"
CASES = {
    # the state from 0001 names the table and column: a dropped column is breaking, at its line
    "remove": ("        migrations.RemoveField(model_name='author', name='name'),\n", False, 8),
    # nullable: safe
    "add": (
        "        migrations.AddField(model_name='author', name='nick',\n"
        "                            field=models.CharField(max_length=9, null=True)),\n",
        True,
        None,
    ),
    # choices only: Django emits no SQL
    "choices": (
        "        migrations.AlterField(model_name='author', name='name',\n"
        "            field=models.CharField(max_length=100, choices=[('a', 'A')])),\n",
        True,
        None,
    ),
    # Python code: unknown, naming it
    "python": ("        migrations.RunPython(fill_names),\n", "unknown", 8),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_migration_is_judged_by_the_sql_its_operations_emit(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    operations, safe, line = CASES[case]
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(DEPENDS, operations)}, case)
    assert evidence["rollingUpdateSafe"] == safe, evidence["because"]
    if line is not None:
        [finding] = evidence["because"]
        assert (finding["file"], finding["line"]) == (ADDED, line)
    if case == "python":
        assert "RunPython(fill_names)" in evidence["because"][0]["message"]


def test_a_concurrent_index_needs_atomic_false(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    operation = (
        "        AddIndexConcurrently(model_name='author',\n"
        "            index=models.Index(fields=['name'], name='author_name_idx')),\n"
    )
    inside = _evidence(make_repo, tmp_path, {ADDED: _migration(DEPENDS, operation)}, "inside")
    assert inside["rollingUpdateSafe"] is False
    head = "    atomic = False\n"
    outside = _evidence(
        make_repo, tmp_path, {ADDED: _migration(DEPENDS, operation, head)}, "outside"
    )
    assert outside["rollingUpdateSafe"] is True, outside["because"]


def test_reverse_sql_is_never_read(make_repo: Callable[[str], RepoBuilder], tmp_path: Path) -> None:
    operation = (
        "        migrations.RunSQL('CREATE INDEX CONCURRENTLY x ON shop_author (bio)',\n"
        "                          reverse_sql='DROP TABLE shop_author'),\n"
    )
    head = "    atomic = False\n"
    evidence = _evidence(make_repo, tmp_path, {ADDED: _migration(DEPENDS, operation, head)}, "r")
    assert evidence["rollingUpdateSafe"] is True, evidence["because"]
