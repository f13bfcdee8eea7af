"""Authentication by personal access token (`Authorization: ApiKey ldpat_...`), and project
access: who may see a project and who may change its roles."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from release_safety.evaluator.errors import forbidden, not_found, unauthorized
from release_safety.evaluator.fixture import token_hash
from release_safety.evaluator.store import Store

_HEADER = re.compile(r"^ApiKey (ldpat_[0-9a-f]{32})$")
PROJECT_ROLES = ("viewer", "interactive_viewer", "editor", "developer", "admin")
HEADERS = 1_024  # Authorization headers whose token digest is kept (clients repeat theirs)


@dataclass(frozen=True)
class Caller:
    """The authenticated user."""

    uuid: str
    org_role: str


def authenticate(store: Store, header: str | None, now: int) -> Caller:
    """The user of a valid, unexpired token (401 AuthorizationError otherwise); tokens and
    their owners are read once, when the store is loaded."""
    if not header:
        raise unauthorized("Missing Authorization header: expected 'ApiKey <token>'")
    digest = _digest(header)
    if digest is None:
        raise unauthorized("Malformed Authorization header: expected 'ApiKey ldpat_<32 hex>'")
    owner = store.tokens.get(digest)
    if owner is None or not owner.is_active:
        raise unauthorized("Unknown personal access token")
    if owner.expires_at is not None and owner.expires_at <= now:
        raise unauthorized("Personal access token has expired")
    return Caller(uuid=owner.user_uuid, org_role=owner.org_role)


@lru_cache(maxsize=HEADERS)
def _digest(header: str) -> str | None:
    """The stored form of the header's token; None for a malformed header."""
    match = _HEADER.match(header.strip())
    return None if match is None else token_hash(match.group(1))


def require_project(store: Store, caller: Caller, project: str) -> str:
    """The caller's role in an existing project (404 unknown project, 403 no access);
    organization admins are admins everywhere."""
    exists, role = store.access(project, caller.uuid)
    if not exists:
        raise not_found(f"Project {project} not found")
    if caller.org_role == "admin":
        return "admin"
    if role is None:
        raise forbidden("You do not have access to this project")
    return role


def require_project_admin(store: Store, caller: Caller, project: str) -> None:
    """Only a project admin (or an organization admin) manages project access."""
    if require_project(store, caller, project) != "admin":
        raise forbidden("Only a project admin can manage project access")
