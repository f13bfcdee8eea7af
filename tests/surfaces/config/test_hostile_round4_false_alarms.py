"""Hostile round 4, class 10 (issue 45): the false alarms a real Next.js service and a Python
service showed, and the break each hid on the other side. Files the image runs are
configuration too (`next.config.js`, a root-level `gunicorn_conf.py`, the shell script a
Dockerfile's ENTRYPOINT runs); a Next.js build-time `env` key is not an operator's variable; a
default written through a constant of the same value is the same default; joined defaults are
readable; a pydantic-settings field its constructor fills is not required."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import ConfigReport

Judge = Callable[..., ConfigReport]
Seen = Callable[..., list[tuple[str, str]]]

APP = "export const port = process.env.PORT ?? '3000';\nexport const auth = process.env.AUTH_URL;\n"
NEXT = "module.exports = {\n  basePath: process.env.AUTH_URL ?? '',\n};\n"


def test_a_variable_still_read_in_next_config_is_not_removed(seen: Seen) -> None:
    old = {"src/config.ts": APP, "next.config.js": NEXT}
    moved = {"src/config.ts": "export const port = process.env.PORT ?? '3000';\n"}
    assert seen(old, moved, ["src/**/*.ts"]) == []
    gone = {**moved, "next.config.js": "module.exports = {};\n"}
    assert [rule for rule, _ in seen(old, gone, ["src/**/*.ts"])] == ["config-var-removed"]


BUILD = "module.exports = {\n  env: { BUILD_ID: 'local' },\n};\n"
PAGE = (
    "export const port = process.env.PORT ?? '3000';\nexport const build = process.env.BUILD_ID;\n"
)


def test_a_next_build_time_env_key_is_not_an_operator_variable(seen: Seen) -> None:
    old = {"src/page.ts": PAGE, "next.config.js": BUILD}
    dropped = {"src/page.ts": "export const port = process.env.PORT ?? '3000';\n"}
    assert seen(old, dropped, ["src/**/*.ts"]) == []
    port_gone = {"src/page.ts": "export const build = process.env.BUILD_ID;\n"}
    assert [rule for rule, _ in seen(old, port_gone, ["src/**/*.ts"])] == ["config-var-removed"]


def test_a_default_through_a_constant_of_the_same_value_is_unchanged(seen: Seen) -> None:
    old = {"src/cache.ts": "export const ttl = process.env.TTL || 86400;\n"}
    same = "const DEFAULT_TTL = 86400;\nexport const ttl = process.env.TTL || DEFAULT_TTL;\n"
    assert seen(old, {"src/cache.ts": same}, ["src/**/*.ts"]) == []
    other = {"src/cache.ts": same.replace("86400", "3600")}
    assert seen(old, other, ["src/**/*.ts"]) == [
        ("config-default-changed", "env var `TTL` default changed `86400` → `3600`")
    ]


def test_joined_defaults_are_readable(seen: Seen) -> None:
    both = "export const a = process.env.TTL || '';\nexport const b = process.env.TTL || 86400;\n"
    found = seen({"src/a.ts": both}, {"src/a.ts": both.replace("86400", "3600")}, ["src/**/*.ts"])
    assert found == [
        ("config-default-changed", "env var `TTL` default changed `'' | 86400` → `'' | 3600`")
    ]


PY_APP = 'import os\n\nDEBUG = os.environ.get("DEBUG", "0")\n'
DOCKERFILE = 'FROM python:3.12\nCOPY . /app\nENTRYPOINT ["/app/docker/entry.sh"]\n'
ENTRY = '#!/bin/sh\nset -e\nWORKERS="${WEB_GUNICORN:-4}"\nexec gunicorn -w "$WORKERS" app:app\n'


def test_an_entrypoint_script_reads_are_configuration(seen: Seen) -> None:
    old = {"app/main.py": PY_APP, "Dockerfile": DOCKERFILE, "docker/entry.sh": ENTRY}
    gone = {"docker/entry.sh": ENTRY.replace("${WEB_GUNICORN:-4}", "4")}
    found = seen(old, gone, ["app/**/*.py"])
    assert [rule for rule, _ in found] == ["config-var-removed"]
    assert "WEB_GUNICORN" in found[0][1]
    changed = {"docker/entry.sh": ENTRY.replace(":-4}", ":-8}")}
    assert seen(old, changed, ["app/**/*.py"]) == [
        ("config-default-changed", "env var `WEB_GUNICORN` default changed `4` → `8`")
    ]
    comment = {"docker/entry.sh": ENTRY + "# tuned\n"}
    assert seen(old, comment, ["app/**/*.py"]) == []


GUNICORN = 'import os\n\nworkers = int(os.environ.get("WEB_CONCURRENCY", "2"))\n'


def test_a_root_gunicorn_conf_is_configuration(seen: Seen) -> None:
    old = {"app/main.py": PY_APP, "gunicorn_conf.py": GUNICORN}
    gone = {"gunicorn_conf.py": "workers = 2\n"}
    found = seen(old, gone, ["app/**/*.py"])
    assert [rule for rule, _ in found] == ["config-var-removed"]
    assert seen(old, {"gunicorn_conf.py": GUNICORN + "\n"}, ["app/**/*.py"]) == []


SETTINGS = """\
import secrets

from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    port: int = 8000
{field}
    def __init__(self, **values):
        values.setdefault("session_secret", secrets.token_hex(32))
        super().__init__(**values)
"""


def test_a_setting_its_constructor_fills_is_not_required(seen: Seen) -> None:
    old = {"app/settings.py": SETTINGS.format(field="")}
    new = {"app/settings.py": SETTINGS.format(field="    session_secret: str\n")}
    assert [rule for rule, _ in seen(old, new, ["app/**/*.py"])] == ["config-optional-var-added"]
    bare = SETTINGS.format(field="    api_key: str\n")
    found = seen(old, {"app/settings.py": bare}, ["app/**/*.py"])
    assert [rule for rule, _ in found] == ["config-required-var-added"]


def test_a_script_only_a_developer_dockerfile_runs_is_not_configuration(seen: Seen) -> None:
    ci = 'FROM python:3.12\nCMD ["sh", "ci/run-tests.sh"]\n'
    script = '#!/bin/sh\npytest --token "${CI_TOKEN:-none}"\n'
    old = {"app/main.py": PY_APP, "ci/Dockerfile": ci, "ci/run-tests.sh": script}
    gone = {"ci/run-tests.sh": "#!/bin/sh\npytest\n"}
    assert seen(old, gone, ["app/**/*.py"]) == []


SHORTHAND = (
    "const privateMode = process.env.PRIVATE_MODE;\n"
    "module.exports = {\n  env: { privateMode },\n};\n"
)
CLIENT = (
    "export const port = process.env.PORT ?? '3000';\nexport const p = process.env.privateMode;\n"
)


def test_a_shorthand_next_env_key_is_not_an_operator_variable(seen: Seen) -> None:
    """umami v2.19.0: `env: { privateMode }` inlines `process.env.privateMode` at build time;
    a release that stops using it removes no operator variable (PRIVATE_MODE is still read)."""
    old = {"src/page.ts": CLIENT, "next.config.js": SHORTHAND}
    dropped = {"src/page.ts": "export const port = process.env.PORT ?? '3000';\n"}
    assert seen(old, dropped, ["src/**/*.ts"]) == []
    unlisted = {"next.config.js": SHORTHAND.replace("env: { privateMode }", "env: {}")}
    gone = {**dropped, **unlisted}
    found = seen({**old, **unlisted}, gone, ["src/**/*.ts"])
    assert [rule for rule, _ in found] == ["config-var-removed"]
    assert "privateMode" in found[0][1]


def test_an_entrypoint_script_named_by_its_name_alone_is_found_when_one_has_that_name(
    seen: Seen,
) -> None:
    """`ENTRYPOINT ["entry.sh"]` (copied to the image's working folder) names the one script of
    that name wherever it is; two scripts of that name leave it unknown which one runs."""
    dockerfile = 'FROM python:3.12\nWORKDIR /app\nCOPY docker/ .\nENTRYPOINT ["./entry.sh"]\n'
    old = {"app/main.py": PY_APP, "Dockerfile": dockerfile, "docker/entry.sh": ENTRY}
    gone = {"docker/entry.sh": ENTRY.replace("${WEB_GUNICORN:-4}", "4")}
    assert [rule for rule, _ in seen(old, gone, ["app/**/*.py"])] == ["config-var-removed"]
    two = {**old, "tools/entry.sh": "#!/bin/sh\n"}
    assert seen(two, gone, ["app/**/*.py"]) == []
