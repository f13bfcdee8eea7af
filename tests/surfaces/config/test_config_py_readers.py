"""Python reader functions, followed across files: each one-change release on a real two-tag
repository (variable removed, default changed, made required: breaking; comment only: quiet;
a computed name in a changed file: unknown)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]
Files = dict[str, str | None]
SOURCES = ["app/config.py"]

UTIL = (
    "import os\n\n\n"
    "def env_str(name, default=None):\n"
    "    return os.environ.get(name, default)\n\n\n"
    "def env_int(name, default=5):\n"
    "    return int(env_str(name, default))\n\n\n"
    "def must(name):\n"
    "    value = os.getenv(name)\n"
    "    if value is None:\n"
    '        raise RuntimeError(f"{name} is not set")\n'
    "    return value\n"
)


def repo(config: str) -> Files:
    return {"app/__init__.py": "", "app/util.py": UTIL, "app/config.py": config}


BASE = (
    "from .util import env_int, env_str, must\n"
    'PORT_NAME = "PORT"\n\n'
    "port = env_int(PORT_NAME, 8080)\n"
    'workers = env_int("WORKERS")\n'
    'timeout = env_int("TIMEOUT") or 5000\n'
    'host = env_str("HOST", "0.0.0.0")\n'
    'secret = must("SECRET")\n'
)


def test_reader_functions_are_resolved_across_files(judge: Judge) -> None:
    report = judge(repo(BASE), repo(BASE + "# tuned\n"), SOURCES)
    assert report.checked is True, report.reason
    assert report.findings == []
    assert sorted(report.coverage.understood) == ["HOST", "PORT", "SECRET", "TIMEOUT", "WORKERS"]


@pytest.mark.parametrize(
    ("new", "rule", "words"),
    [
        (BASE.replace('workers = env_int("WORKERS")\n', ""), "config-var-removed", "WORKERS"),
        (BASE.replace("8080", "9090"), "config-default-changed", "`8080` → `9090`"),
        (BASE.replace("or 5000", "or 6000"), "config-default-changed", "`5000` → `6000`"),
        (BASE.replace('env_str("HOST", "0.0.0.0")', 'must("HOST")'), None, "HOST"),
    ],
    ids=["removed", "default-argument", "or-default", "made-required"],
)
def test_one_change_releases_through_readers_are_breaking(
    judge: Judge, new: str, rule: str | None, words: str
) -> None:
    report = judge(repo(BASE), repo(new), SOURCES)
    assert report.checked is True, report.reason
    breaking = [f for f in report.findings if f.severity == "breaking"]
    assert breaking, report.findings
    assert rule is None or breaking[0].rule == rule
    assert words in breaking[0].message
    assert breaking[0].file == "app/config.py"


def test_a_reader_parameter_default_change_is_breaking(judge: Judge) -> None:
    changed = {**repo(BASE), "app/util.py": UTIL.replace("default=5", "default=6")}
    report = judge(repo(BASE), changed, SOURCES)
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-default-changed", "env var `WORKERS` default changed `5` → `6`")
    ]


def test_a_computed_name_in_a_changed_file_is_unknown(judge: Judge) -> None:
    new = BASE + 'for prefix in ("A", "B"):\n    extra = env_str(f"{prefix}_EXTRA")\n'
    report = judge(repo(BASE), repo(new), SOURCES)
    assert report.checked is False
    gap = next(f for f in report.findings if f.rule == "config-read-not-understood")
    assert gap.file == "app/config.py" and gap.line == 10
    assert 'env_str(f"{prefix}_EXTRA")' in gap.message
    assert "app/config.py:10" in (gap.hint or "")


def test_a_computed_os_environ_read_is_a_gap_only_where_the_release_changes(
    judge: Judge,
) -> None:
    code = 'import os\nP = os.environ["PORT"]\nX = os.environ[f"{P}_X"]\n'
    quiet = judge(
        {"app/config.py": code, "app/other.py": "import os\nA = os.getenv('A')\n"},
        {"app/config.py": code, "app/other.py": "import os\nA = os.getenv('A')  # a\n"},
        ["app/*.py"],
    )
    assert quiet.checked is True, quiet.reason
    assert [u.line for u in quiet.coverage.unmodelled] == [3]
    loud = judge({"app/config.py": code}, {"app/config.py": code + "# c\n"}, ["app/*.py"])
    assert loud.checked is False
    assert loud.findings[0].rule == "config-read-not-understood"
    assert 'f"{P}_X"' in loud.findings[0].message


def test_readers_through_module_imports_and_package_reexports(judge: Judge) -> None:
    files: Files = {
        "src/svc/__init__.py": "from .helpers.env import getenv_int\n",
        "src/svc/helpers/__init__.py": "",
        "src/svc/helpers/env.py": (
            "import os\n\n\ndef getenv_int(key, fallback):\n"
            "    return int(os.environ.get(key) or fallback)\n"
        ),
        "src/svc/settings.py": (
            "import svc.helpers.env as e\nfrom svc import getenv_int\n\n"
            'A = e.getenv_int("A_PORT", 1)\nB = getenv_int("B_PORT", 2)\n'
        ),
    }
    changed = {**files, "src/svc/settings.py": files["src/svc/settings.py"].replace("2)", "3)")}  # type: ignore[union-attr]
    report = judge(files, changed, ["src/svc/settings.py"])
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-default-changed", "env var `B_PORT` default changed `2` → `3`")
    ]
    assert sorted(report.coverage.understood) == ["A_PORT", "B_PORT"]


SECRETS = (
    "import os\n\n\n"
    "def envsecret(s, default=None):\n"
    '    if path := os.getenv(s + "_FILE"):\n'
    "        return open(path).read()\n"
    "    return os.getenv(s, default)\n\n\n"
    'PREFIX = "APP"\n'
    'SECRET_KEY = envsecret("SECRET_KEY", "dev")\n'
    'TOKEN = os.getenv(f"{PREFIX}_TOKEN", "t")\n'
)


def test_a_reader_reads_every_name_it_builds_from_its_parameter(judge: Judge) -> None:
    report = judge({"app/config.py": SECRETS}, {"app/config.py": SECRETS + "# c\n"}, SOURCES)
    assert report.checked is True, report.reason
    assert sorted(report.coverage.understood) == ["APP_TOKEN", "SECRET_KEY", "SECRET_KEY_FILE"]
    removed = SECRETS.replace('    if path := os.getenv(s + "_FILE"):\n', "    if False:\n")
    report = judge({"app/config.py": SECRETS}, {"app/config.py": removed}, SOURCES)
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-var-removed", "env var `SECRET_KEY_FILE` removed (previous default (none))")
    ]


GUARDED = (
    "import os\n\n\n"
    "def get_int_from_env(key, default=None):\n"
    "    if key not in os.environ:\n"
    "        return default\n"
    "    return int(os.environ[key])\n\n\n"
    'COUNT = get_int_from_env("PROXY_COUNT", 2)\n'
)


def test_a_reader_that_tests_the_environment_first_is_not_required(judge: Judge) -> None:
    new = GUARDED + 'LIMIT = get_int_from_env("LIMIT")\n'
    report = judge({"app/config.py": GUARDED}, {"app/config.py": new}, SOURCES)
    assert [(f.rule, f.message) for f in report.findings] == [
        ("config-optional-var-added", "new optional env var `LIMIT` (default (none))")
    ]
    changed = GUARDED.replace(", 2)", ", 3)")
    report = judge({"app/config.py": GUARDED}, {"app/config.py": changed}, SOURCES)
    assert [f.rule for f in report.findings] == ["config-default-changed"]
