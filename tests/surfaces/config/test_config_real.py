"""The issue's findings on the real repositories: goharbor/harbor and svix/svix-webhooks,
brought with the search tool's `fetch` as bare git directories and cloned to `tmp_path` here
(never committed). Skipped where the fetched copies are not on the machine."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from release_safety.contract.reports import ConfigReport
from release_safety.git.repository import GitRepo
from release_safety.settings.model import parse_settings
from release_safety.surfaces.config import analyse

MIRROR = Path("/work/.mirror")
TEMPLATE = "make/harbor.yml.tmpl"
HARBOR = 'sources = ["src/**/*.go", "make/harbor.yml.tmpl"]'
SVIX = (
    'sources = ["server/svix-server/src/**/*.rs", "server/svix-server/config.default.toml", '
    '"server/svix-server/development.env"]'
)


def _clone(name: str, folder: Path) -> Iterator[GitRepo]:
    source = MIRROR / name / "repo"
    if not source.is_dir():
        pytest.skip(f"{name} is not fetched on this machine")
    target = folder / f"{name}.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(target)], check=True)
    repo = GitRepo(target)
    yield repo
    repo.close()


@pytest.fixture(scope="module")
def harbor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitRepo]:
    yield from _clone("goharbor+harbor", tmp_path_factory.mktemp("harbor"))


@pytest.fixture(scope="module")
def svix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GitRepo]:
    yield from _clone("svix+svix-webhooks", tmp_path_factory.mktemp("svix"))


def _report(repo: GitRepo, sources: str, old: str, new: str) -> ConfigReport:
    settings = parse_settings(f"[config]\n{sources}\n", "settings.toml")
    report = analyse(repo.snapshot(old), repo.snapshot(new), settings)
    assert report.checked is True, report.reason
    return report


def test_harbor_reads_the_tcr_limit_under_a_new_name(harbor: GitRepo) -> None:
    report = _report(harbor, HARBOR, "v2.13.5", "v2.14.0")
    renamed = [f for f in report.findings if "TCR_QPS_LIMIT" in f.message]
    assert [(f.rule, f.file, f.message) for f in renamed] == [
        (
            "config-var-renamed",
            "src/pkg/reg/adapter/tencentcr/adapter.go",
            "env var `TCR_QPS_LIMIT` renamed to `REG_ADAPTER_TCR_QPS_LIMIT` without fallback",
        )
    ]
    assert not [f for f in report.findings if f.rule == "config-var-removed"]


@pytest.mark.parametrize(("old", "new"), [("v2.4.3", "v2.5.0"), ("v2.9.5", "v2.10.0")])
def test_harbor_vendored_code_and_tests_are_not_the_service(
    harbor: GitRepo, old: str, new: str
) -> None:
    report = _report(harbor, HARBOR, old, new)
    assert not [f for f in report.findings if f.severity == "breaking" and f.file != TEMPLATE]
    read = [*report.coverage.old, *report.coverage.new]
    assert not [p for p in read if "/vendor/" in p or p.endswith("_test.go")]
    for name in ("GOARCH", "`HOME`", "AWS_ACCESS_KEY"):
        assert not [f for f in report.findings if name in f.message]


def test_harbor_template_gives_keys_not_defaults(harbor: GitRepo) -> None:
    report = _report(harbor, HARBOR, "v2.9.5", "v2.10.0")  # `_version: 2.9.0` -> `2.10.0`
    assert [(f.rule, f.message) for f in report.findings if f.file == TEMPLATE] == [
        (
            "config-var-removed",
            "config key `trivy.skip_java_db_update` removed (previous default (none))",
        )
    ]


def test_svix_example_env_values_are_not_defaults(svix: GitRepo) -> None:
    report = _report(svix, SVIX, "v1.76.1", "v1.77.0")
    assert report.findings == []


def test_svix_defaults_file_is_read_under_its_prefix(svix: GitRepo) -> None:
    report = _report(svix, SVIX, "v1.92.2", "v1.93.0")
    assert [(f.rule, f.message) for f in report.findings] == [
        (
            "config-optional-var-added",
            "new optional env var `SVIX_BACKGROUND_MIGRATIONS_ENABLED` (default `true`)",
        )
    ]
    assert _report(svix, SVIX, "v1.84.0", "v1.84.1").findings == []
