"""Surfaces judged in a forked child beside the others (`release/beside.py`,
`release/generate.run_surfaces`): the same reports and errors as one surface after the other,
a child that dies is its surfaces not checked, and no fork where it is not safe."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from release_safety.cli.main import run
from release_safety.common.errors import InputError
from release_safety.contract.reports import SurfaceReport
from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import Snapshot
from release_safety.release import beside, generate
from release_safety.settings.model import Settings

MakeRepo = Callable[[str], RepoBuilder]

forking = pytest.mark.skipif(not beside.possible(), reason="no fork here: run in one below")

V1 = {
    "db/migrations/001_init.sql": "CREATE TABLE users (id int, name text);\n",
    "src/config.py": 'import os\nPORT = os.environ.get("PORT", "8080")\n',
    "openapi.yaml": "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    ".release-safety.toml": '[mcp]\nabsent = "the service exposes no MCP server to agents"\n'
    '[config]\nsources = ["src/**/*.py"]\n',
}
V2 = {
    "db/migrations/002_add.sql": "ALTER TABLE users ADD COLUMN age int NOT NULL;\n",
    "src/config.py": 'import os\nPORT = os.environ["PORT"]\nHOST = os.getenv("HOST")\n',
}


def _service(make_repo: MakeRepo, name: str) -> RepoBuilder:
    """A repository of the two releases, 1.0.0 (V1) and 1.1.0 (V2)."""
    built = make_repo(name)
    built.release("1.0.0", V1)
    built.release("1.1.0", V2)
    return built


def _waiting_child() -> tuple[beside.Beside[bool], int]:
    """A child that waits (a minute at most), and its process id."""
    stop = threading.Event()
    child = beside.Beside(lambda: stop.wait(60), lambda: None)
    assert child._pid is not None
    return child, child._pid


def _cancelled(child: beside.Beside[bool], pid: int) -> None:
    """Cancel the child; no such child is left: killed and reaped."""
    child.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


@pytest.fixture
def repo(make_repo: MakeRepo) -> Iterator[GitRepo]:
    opened = GitRepo(_service(make_repo, "svc").path)
    yield opened
    opened.close()


def _surfaces(repo: GitRepo, fork: bool) -> list[SurfaceReport]:
    old, new = repo.snapshot("1.0.0"), repo.snapshot("1.1.0")
    settings = Settings.model_validate(
        {"mcp": {"absent": "the service exposes no MCP server to agents"}}
        | {"config": {"sources": ["src/**/*.py"]}}
    )
    return generate.run_surfaces(old, new, settings, "1.1.0", fork_git=repo if fork else None)


def _dumped(reports: list[SurfaceReport]) -> list[str]:
    return [report.model_dump_json() for report in reports]


@forking
def test_reports_beside_are_the_reports_one_after_the_other(repo: GitRepo) -> None:
    alone = _surfaces(repo, fork=False)
    config = next(r for r in alone if r.surface == "config")
    assert config.checked and config.findings  # the config change is seen: PORT now required
    assert _dumped(_surfaces(repo, fork=True)) == _dumped(alone)


def _pid_config(pids: list[int]) -> generate.Analyser:
    def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
        pids.append(os.getpid())  # kept in the process that ran it
        return SurfaceReport(surface="config", checked=True, reason=f"pid {os.getpid()}")

    return analyse


def _with_config(monkeypatch: pytest.MonkeyPatch, analyse: generate.Analyser) -> None:
    surfaces = [(s, analyse if s == "config" else a) for s, a in generate.SNAPSHOT_SURFACES]
    monkeypatch.setattr(generate, "SNAPSHOT_SURFACES", tuple(surfaces))


@forking
def test_config_runs_in_a_child(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    pids: list[int] = []
    _with_config(monkeypatch, _pid_config(pids))
    reports = _surfaces(repo, fork=True)
    config = next(r for r in reports if r.surface == "config")
    assert not pids  # not run here
    assert config.reason is not None and config.reason != f"pid {os.getpid()}"
    assert [r.surface for r in reports][:6] == [s for s, _ in generate.SNAPSHOT_SURFACES]


@forking
def test_no_fork_with_a_second_thread(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread (Go's runtime once BuildKit's parser is loaded, say) forbids the fork."""
    pids: list[int] = []
    _with_config(monkeypatch, _pid_config(pids))
    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait)
    waiting.start()
    try:
        assert not beside.possible()
        _surfaces(repo, fork=True)
    finally:
        stop.set()
        waiting.join()
    assert pids == [os.getpid()]


@forking
def test_a_child_that_dies_leaves_its_surface_not_checked(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()

    def killed(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("config ran in the parent")

    _with_config(monkeypatch, killed)
    reports = {r.surface: r for r in _surfaces(repo, fork=True)}
    config = reports["config"]
    assert not config.checked
    assert [f.rule for f in config.findings] == ["surface-not-checked"]
    assert "killed by SIGKILL" in config.findings[0].message
    assert reports["migrations"].checked  # the others still judged


def _raising(surface: str, message: str) -> generate.Analyser:
    def analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport:
        raise InputError(message)

    return analyse


@forking
@pytest.mark.parametrize("fork", [False, True])
def test_the_first_surface_to_raise_raises(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, fork: bool
) -> None:
    """config (in the child) comes before migrations (here): its error is the one raised, as
    one surface after the other would raise it; alone, migrations' is."""
    surfaces = [
        (s, _raising(s, f"{s} refused") if s in ("config", "migrations") else a)
        for s, a in generate.SNAPSHOT_SURFACES
    ]
    monkeypatch.setattr(generate, "SNAPSHOT_SURFACES", tuple(surfaces))
    with pytest.raises(InputError, match="config refused"):
        _surfaces(repo, fork=fork)
    only = [(s, a) for s, a in surfaces if s != "config"]
    monkeypatch.setattr(generate, "SNAPSHOT_SURFACES", tuple(only))
    with pytest.raises(InputError, match="migrations refused"):
        _surfaces(repo, fork=fork)


@forking
@pytest.mark.parametrize("fork", [False, True])
def test_the_overrides_error_comes_after_the_surfaces(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, fork: bool
) -> None:
    """The overrides are judged while the child works, and last in the reports; their error is
    raised when no surface raised one, as when they were judged after the surfaces."""
    assert [r.surface for r in _surfaces(repo, fork)][-1] == "overrides"
    monkeypatch.setattr(generate, "_overrides", lambda version: _raising("overrides", "bad"))
    with pytest.raises(InputError, match="bad"):
        _surfaces(repo, fork=fork)
    surfaces = [
        (s, _raising(s, f"{s} refused") if s == "config" else a)
        for s, a in generate.SNAPSHOT_SURFACES
    ]
    monkeypatch.setattr(generate, "SNAPSHOT_SURFACES", tuple(surfaces))
    with pytest.raises(InputError, match="config refused"):
        _surfaces(repo, fork=fork)


@forking
def test_value_and_error_come_back() -> None:
    child = beside.Beside(os.getpid, lambda: None)
    assert gc.get_freeze_count() > 0  # the shared objects left alone while the child runs
    assert child.result() != os.getpid()
    assert gc.get_freeze_count() == 0

    def refuse() -> None:
        raise InputError("bad input in the child")

    with pytest.raises(InputError, match="bad input in the child"):
        beside.Beside(refuse, lambda: None).result()


@forking
def test_a_cancelled_child_is_reaped() -> None:
    child, pid = _waiting_child()
    _cancelled(child, pid)


@forking
def test_a_backfill_judges_every_surface_in_its_own_process(
    make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backfill's workers already use the cores (`--jobs`): no release forks there."""
    built = _service(make_repo, "backfilled")
    pids: list[int] = []
    _with_config(monkeypatch, _pid_config(pids))
    index = tmp_path / "index.json"
    assert run(["backfill", "--repo", str(built.path), "--index", str(index)]) == 0
    assert pids and set(pids) == {os.getpid()}  # every release's config judged here


@forking
def test_an_interrupted_wait_is_cancelled_cleanly() -> None:
    """Ctrl-C while this process waits for the answer: the child is stopped and reaped, and
    nothing is closed twice."""
    child, pid = _waiting_child()

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            child.result()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    _cancelled(child, pid)


@forking
def test_generate_answers_the_same_beside(
    make_repo: MakeRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command: its artifact and evidence the same with the fork and without."""
    built = _service(make_repo, "cli")

    def answers(name: str) -> tuple[int, str, str]:
        out, evidence = tmp_path / f"{name}.json", tmp_path / f"{name}.evidence"
        args = ["generate", "--repo", str(built.path), "--to", "1.1.0", "--out", str(out)]
        code = run([*args, "--evidence", str(evidence)])
        return code, out.read_text(), json.dumps(json.loads(evidence.read_text()))

    forked = answers("forked")
    monkeypatch.setattr(beside, "possible", lambda: False)
    assert answers("alone") == forked
    artifact = json.loads(forked[1])
    assert artifact["config"]["checked"] and artifact["config"]["breaking"]  # PORT required
    assert not artifact["compatibility"]["rollingUpdateSafe"]


@pytest.mark.skipif(
    beside.possible() or sys.platform != "linux", reason="the tests above ran in this process"
)
def test_in_a_process_of_one_thread() -> None:
    """pytest-xdist's workers hold threads of their own, so no fork is taken there and the
    tests above are skipped: they run here in a pytest process of one thread."""
    plugins = ["-p", "no:cacheprovider", "-p", "no:xdist"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *plugins, "-k", "not one_thread", __file__],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    if len(os.sched_getaffinity(0)) >= 2:
        assert "13 passed" in done.stdout, done.stdout[-3000:]
