"""The workflow operations callers chain: saved charts, organization users, dashboards,
project access and catalog metrics. Each takes a connection and checked values."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from release_safety.evaluator.auth import Caller, require_project
from release_safety.evaluator.errors import ApiError, not_found
from release_safety.evaluator.params import offset_of, page_info
from release_safety.evaluator.store import Store

CONTENT_SORTS = {"name": "name", "lastUpdatedAt": "updated_at"}
CATALOG_SORTS = {"name": "name", "label": "label", "chartUsage": "chart_usage"}


def saved_chart(store: Store, caller: Caller, chart_uuid: str) -> dict[str, Any]:
    """A saved chart the caller may see (404 unknown, 403 no access to its project)."""
    row = (
        store.conn()
        .execute("SELECT project_uuid, record FROM saved_charts WHERE uuid = ?", (chart_uuid,))
        .fetchone()
    )
    if row is None:
        raise not_found(f"Saved chart {chart_uuid} not found")
    require_project(store, caller, row["project_uuid"])
    record: dict[str, Any] = json.loads(row["record"])
    return record


def org_users(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every member of the organization, by email."""
    rows = conn.execute("SELECT record FROM users ORDER BY email, uuid").fetchall()
    return [json.loads(row["record"]) for row in rows]


def dashboards(
    conn: sqlite3.Connection,
    projects: list[str],
    page: int,
    page_size: int,
    sort_by: str,
    descending: bool,
) -> dict[str, Any]:
    """Dashboards of the given projects as v2 content items, one page of them."""
    marks = ", ".join("?" * len(projects))
    total = conn.execute(
        f"SELECT count(*) FROM dashboards WHERE project_uuid IN ({marks})", projects
    ).fetchone()[0]
    direction = "DESC" if descending else "ASC"
    rows = conn.execute(
        f"SELECT record FROM dashboards WHERE project_uuid IN ({marks})"
        f" ORDER BY {CONTENT_SORTS[sort_by]} {direction}, uuid LIMIT ? OFFSET ?",
        [*projects, page_size, offset_of(page, page_size)],
    ).fetchall()
    return {
        "data": [json.loads(row["record"]) for row in rows],
        "pagination": page_info(page, page_size, total),
    }


def visible_projects(conn: sqlite3.Connection, caller: Caller) -> list[str]:
    """Projects the caller has a role in (all of them for an organization admin)."""
    if caller.org_role == "admin":
        rows = conn.execute("SELECT uuid FROM projects ORDER BY uuid").fetchall()
    else:
        rows = conn.execute(
            "SELECT project_uuid FROM project_roles WHERE user_uuid = ? ORDER BY project_uuid",
            (caller.uuid,),
        ).fetchall()
    return [row[0] for row in rows]


def _access_record(row: sqlite3.Row) -> dict[str, Any]:
    user = json.loads(row["record"])
    return {
        "projectUuid": row["project_uuid"],
        "userUuid": user["userUuid"],
        "email": user["email"],
        "firstName": user["firstName"],
        "lastName": user["lastName"],
        "role": row["role"],
    }


_ACCESS = (
    "SELECT r.project_uuid, r.role, u.record FROM project_roles r"
    " JOIN users u ON u.uuid = r.user_uuid"
)


def project_access(conn: sqlite3.Connection, project: str) -> list[dict[str, Any]]:
    """Who has which role in a project."""
    rows = conn.execute(
        f"{_ACCESS} WHERE r.project_uuid = ? ORDER BY u.email", (project,)
    ).fetchall()
    return [_access_record(row) for row in rows]


def _one_access(conn: sqlite3.Connection, project: str, user: str) -> dict[str, Any]:
    row = conn.execute(
        f"{_ACCESS} WHERE r.project_uuid = ? AND r.user_uuid = ?", (project, user)
    ).fetchone()
    return _access_record(row)


def grant_access(conn: sqlite3.Connection, project: str, email: str, role: str) -> dict[str, Any]:
    """Give an organization member a role in a project (400 when they already have one)."""
    user = conn.execute("SELECT uuid FROM users WHERE email = ?", (email,)).fetchone()
    if user is None:
        raise not_found(f"No organization member with email {email}")
    exists = conn.execute(
        "SELECT 1 FROM project_roles WHERE project_uuid = ? AND user_uuid = ?",
        (project, user["uuid"]),
    ).fetchone()
    if exists:
        raise ApiError(
            400, "ParameterError", "This user already has access to the project; update it"
        )
    conn.execute("INSERT INTO project_roles VALUES (?, ?, ?)", (project, user["uuid"], role))
    return _one_access(conn, project, user["uuid"])


def update_access(conn: sqlite3.Connection, project: str, user: str, role: str) -> dict[str, Any]:
    """Change a member's role in a project (404 when they have none)."""
    cursor = conn.execute(
        "UPDATE project_roles SET role = ? WHERE project_uuid = ? AND user_uuid = ?",
        (role, project, user),
    )
    if cursor.rowcount == 0:
        raise not_found(f"User {user} has no access to this project")
    return _one_access(conn, project, user)


def catalog_metrics(
    conn: sqlite3.Connection,
    project: str,
    tags: list[str],
    page: int,
    page_size: int,
    sort: str,
    descending: bool,
) -> dict[str, Any]:
    """Catalog metrics with a time dimension; repeated tags combine with OR."""
    where = "project_uuid = ?"
    args: list[Any] = [project]
    if tags:
        marks = ", ".join("?" * len(tags))
        where += f" AND id IN (SELECT metric_id FROM catalog_tags WHERE tag IN ({marks}))"
        args.extend(tags)
    total = conn.execute(f"SELECT count(*) FROM catalog_metrics WHERE {where}", args).fetchone()[0]
    direction = "DESC" if descending else "ASC"
    rows = conn.execute(
        f"SELECT record FROM catalog_metrics WHERE {where}"
        f" ORDER BY {CATALOG_SORTS[sort]} {direction}, table_name, name LIMIT ? OFFSET ?",
        [*args, page_size, offset_of(page, page_size)],
    ).fetchall()
    return {
        "data": [json.loads(row["record"]) for row in rows],
        "pagination": page_info(page, page_size, total),
    }
