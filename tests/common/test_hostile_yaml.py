"""YAML alias bombs in every YAML the tool loads (issue 35 class 7): compose files, Helm charts
and values, structured config files and the evaluator's contract document are bounded by the
one check OpenAPI documents use (`yamlbound`), so a 1 KB bomb is refused before it expands:
the surface is not checked, with a finding naming the file and the bound."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from release_safety.common.errors import InputError
from release_safety.common.yamlbound import MAX_NODES, TOO_MANY, YamlBoundError, check
from release_safety.common.yamltree import YamlError, load_yaml
from release_safety.evaluator.contract import load_spec
from release_safety.git.builder import RepoBuilder
from release_safety.surfaces.config import structured
from release_safety.surfaces.config.reads import SourceError

MEMORY_CAP = 2 * 1024**3
"""Address space the CLI is given: the bombs expand to tens of GB when unbounded."""


def bomb(levels: int = 9) -> str:
    """`x-a8` expands to 9^9 (387 million) strings; the text is under 1 KB."""
    lines = ["x-a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    lines += [f"x-a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


COMPOSE = "services:\n  app:\n    image: app:{}\n"
CHART = "apiVersion: v2\nname: app\nversion: 0.{}.0\n"
VALUES = "image:\n  repository: app\n  tag: '{}'\n"
CONFIG = "database:\n  host: db\n  pool: {}\n"
SETTINGS = '[config]\nsources = ["conf/app.yaml"]\n'
FILES = {
    "compose.yaml": COMPOSE,
    "chart/Chart.yaml": CHART,
    "chart/values.yaml": VALUES,
    "conf/app.yaml": CONFIG,
}


def test_the_bound_counts_expansions_and_spares_modest_aliases() -> None:
    assert len(bomb()) < 1000
    with pytest.raises(YamlBoundError, match="more than 1,000,000 nodes"):
        check(bomb())
    check("base: &b {a: 1, b: 2}\none: *b\ntwo: {<<: *b, c: 3}\n")
    # 9^6 = 531,441 strings plus their lists: within the bound, so read
    check(bomb(levels=6))
    assert 9**6 < MAX_NODES < 9**7


@pytest.mark.parametrize(
    ("text", "added"),
    [
        ("a: 1\nb: [2, 3]\n", 0),
        ("base: &b {a: 1, b: 2}\none: *b\ntwo: [*b, *b]\n", 12),
        ("s: &s x\nt: *s\n", 0),
        ("a: *x\nb: &x 1\n", None),  # forward
        ("a: &x {b: *x}\n", None),  # recursive
        ("a: &x 1\nb: &x 2\nc: *x\n", None),  # defined twice
        ("a: &x {b: &x 1}\nc: *x\n", None),
    ],
)
def test_the_check_says_what_copying_the_aliases_adds(text: str, added: int | None) -> None:
    """What a reader that copies aliases (rapidyaml) would add, or None where it cannot be
    trusted (PyYAML refuses a forward alias or a second anchor, and shares a recursive one)."""
    assert check(text) == added


@pytest.mark.parametrize(
    ("load", "error"),
    [
        (load_yaml, YamlError),
        (lambda text: structured.load(text.encode(), "yaml"), SourceError),
    ],
    ids=["compose-and-helm", "config-structured"],
)
def test_each_yaml_loader_refuses_a_bomb_before_it_expands(
    load: Callable[[str], object], error: type[Exception]
) -> None:
    with pytest.raises(error, match="more than 1,000,000 nodes"):
        load(COMPOSE.format(1) + bomb())


def test_the_contract_document_is_bounded_too(tmp_path: Path) -> None:
    spec = tmp_path / "openapi.yaml"
    spec.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n" + bomb())
    with pytest.raises(InputError, match="more than 1,000,000 nodes"):
        load_spec(spec)


@pytest.fixture
def bombed(make_repo: Callable[[str], RepoBuilder]) -> RepoBuilder:
    """1.0.0 reads; 1.1.0 adds a bomb to a compose file, a chart's values and a config file."""
    builder = make_repo("bombed")
    builder.write(".release-safety.toml", SETTINGS)
    builder.release("1.0.0", {path: text.format(1) for path, text in FILES.items()})
    bombs = ("compose.yaml", "chart/values.yaml", "conf/app.yaml")
    files = {p: text.format(2) + (bomb() if p in bombs else "") for p, text in FILES.items()}
    builder.release("1.1.0", files)
    return builder


def capped(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a process with `MEMORY_CAP` of address space, killed after 120 s."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    command = [sys.executable, "-m", "release_safety", *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, preexec_fn=cap, check=False
    )


def test_generate_reads_no_bomb_and_says_which_file(bombed: RepoBuilder, tmp_path: Path) -> None:
    out, evidence = tmp_path / "a.json", tmp_path / "e.json"
    args = ["generate", "--repo", str(bombed.path), "--to", "1.1.0", "--out", str(out)]
    done = capped(*args, "--evidence", str(evidence))
    assert done.returncode == 0, done.stderr
    artifact = json.loads(out.read_text())
    assert artifact["config"]["checked"] is False
    assert artifact["compatibility"]["rollingUpdateSafe"] == "unknown"
    reasons = evidence.read_text()
    for named in ("compose.yaml", "chart/values.yaml", "conf/app.yaml:1"):
        assert f"{named} at 1.1.0: {TOO_MANY}" in reasons


def test_check_pr_reads_no_bomb_and_warns_per_surface(bombed: RepoBuilder) -> None:
    args = ["check-pr", "--repo", str(bombed.path), "--base", "1.0.0", "--head", "1.1.0"]
    done = capped(*args, "--json")
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    warned = {w["surface"]: w["message"] for w in report["warnings"]}
    assert TOO_MANY in warned["deployment"] and TOO_MANY in warned["config"]
    assert report["rollingUpdateSafe"] == "unknown"
