"""Migrations written in code: one module per framework, each emitting the statements its
migrations run on PostgreSQL, with their lines, behind knex's interface
(`extract(text, path, read_module=...) -> Extracted`). What they share is `emit.py` (the
statements, quoting, unknowns) and `order.py` (the order Django and Alembic run them in)."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.surfaces.migrations.sql.statements import Extracted

ReadModule = Callable[[str], "str | None"]


def extract_code(
    fmt: str, text: str, path: str, *, read_module: ReadModule | None = None
) -> Extracted:
    """The statements a migration of framework `fmt` runs on upgrade, and its transaction."""
    if fmt == "knex":
        from release_safety.surfaces.migrations.frameworks.knex import extract_knex

        return extract_knex(text, path, read_module=read_module)
    if fmt == "rails":
        from release_safety.surfaces.migrations.frameworks.rails import extract_rails

        return extract_rails(text, path)
    if fmt == "django":
        from release_safety.surfaces.migrations.frameworks.django import extract_django

        return extract_django(text, path, read_module=read_module)
    if fmt == "alembic":
        from release_safety.surfaces.migrations.frameworks.alembic import extract_alembic

        return extract_alembic(text, path, read_module=read_module)
    if fmt == "typeorm":
        from release_safety.surfaces.migrations.frameworks.typeorm import extract_typeorm

        return extract_typeorm(text, path)
    if fmt == "ecto":
        from release_safety.surfaces.migrations.frameworks.ecto import extract_ecto

        return extract_ecto(text, path)
    if fmt == "sequelize":
        from release_safety.surfaces.migrations.frameworks.sequelize import extract_sequelize

        return extract_sequelize(text, path)
    if fmt == "go-embedded":
        from release_safety.surfaces.migrations.frameworks.goembedded import extract_goembedded

        return extract_goembedded(text, path)
    raise ValueError(f"no reader for {fmt} migrations")
