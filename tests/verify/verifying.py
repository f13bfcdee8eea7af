"""Helpers of the verify tests: a release in a real git repository, a run of it, a URL."""

from __future__ import annotations

from pathlib import Path

from release_safety.contract.verification import Verification
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.release.generate import prepare
from release_safety.verify.database import Target
from release_safety.verify.plan import plan_release
from release_safety.verify.run import Where, verify_plan

INIT = """CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL, age int);
CREATE TABLE orders (id bigint PRIMARY KEY, user_id bigint NOT NULL REFERENCES users (id),
  amount numeric(10, 2));
"""


def release_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    builder = RepoBuilder(tmp_path / "repo")
    builder.release("1.0.0", {"migrations/0001_init.up.sql": INIT}, prefix="v")
    builder.release("1.1.0", files, prefix="v")
    return builder.path


def verify(path: Path, where: Where, rows: int = 500) -> Verification:
    repo = GitRepo(path)
    try:
        release, settings, _ = prepare(repo, "v1.1.0")
        plan = plan_release(repo, settings, release)
    finally:
        repo.close()
    return verify_plan(plan, where, rows)


def url(target: Target, user: str = "postgres", database: str | None = None) -> str:
    return f"postgresql://{user}@{target.host}:{target.port}/{database or target.database}"
