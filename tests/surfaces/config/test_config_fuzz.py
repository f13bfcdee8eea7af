"""Malformed env files and sources: a clear finding or "not checked", never a traceback."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from release_safety.contract.reports import RULES
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import ConfigSettings, Settings
from release_safety.surfaces.config import _CACHE, analyse, dotenv

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATHS = [
    ".env.example",
    "src/config.ts",
    "src/App.tsx",
    "src/config.js",
    "app/settings.py",
    "cmd/main.go",
]
SETTINGS = Settings(
    config=ConfigSettings(sources=(".env.example", "src/*", "app/*.py", "cmd/*.go"))
)
SYNTAX = "abXY_=.,'\"`()[]{}<>!?|&;:+-*/\\# \n\t0123456789"
SNIPPETS = [
    "process.env.A",
    "process.env['B']",
    "os.environ['C']",
    "os.getenv('D', 'x')",
    'os.Getenv("E")',
    "const { F = 'y' } = process.env;",
    "import os\n",
    "package main\n",
    '`envconfig:"G" default:"z"`',
    "||",
    "??",
    "=",
]
sources = st.one_of(
    st.binary(max_size=120).map(lambda b: b.decode("latin-1")),
    st.text(alphabet=SYNTAX, max_size=120),
    st.lists(st.sampled_from(SNIPPETS) | st.text(alphabet=SYNTAX, max_size=6), max_size=12).map(
        "".join
    ),
)


@FUZZ
@given(path=st.sampled_from(PATHS), text=sources)
def test_random_sources(path: str, text: str) -> None:
    old = MemorySnapshot({".env.example": "A=1\n"}, ref="v1")
    new = MemorySnapshot({path: text}, ref="v2")
    for report in (analyse(old, new, SETTINGS), analyse(new, old, SETTINGS)):
        if report.checked:
            assert all(f.rule in RULES and f.file and (f.line or 0) >= 1 for f in report.findings)
        else:
            assert report.reason and report.changes == []
            rules = {f.rule for f in report.findings}
            assert rules and rules <= {"surface-not-checked", "settings-path-unmatched"}
            assert all(f.severity == "unknown" for f in report.findings)


env_names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,8}", fullmatch=True)
env_values = st.text(alphabet="abc123-_./:@", max_size=10)


@FUZZ
@given(variables=st.dictionaries(env_names, env_values, max_size=6))
def test_dotenv_round_trip(variables: dict[str, str]) -> None:
    text = "".join(f"# {name}\n{name}={value}\n" for name, value in variables.items())
    reads = dotenv.parse(text)
    assert {r.name: r.default for r in reads} == {k: v or None for k, v in variables.items()}
    assert {r.name for r in reads if r.required} == {k for k, v in variables.items() if not v}


def test_parsing_is_memoised_per_blob() -> None:
    source = "export const p = process.env.MEMO_PORT || '1';\n"
    old = MemorySnapshot({"src/a.ts": source}, ref="v1")
    new = MemorySnapshot({"src/a.ts": source, "src/b.ts": source}, ref="v2")
    settings = Settings(config=ConfigSettings(sources=("src/*",)))
    analyse(old, new, settings)
    size = len(_CACHE)
    report = analyse(old, new, settings)
    assert len(_CACHE) == size
    assert ("ts None False", new.blob_id("src/a.ts")) in _CACHE  # no table of defaults
    assert report.findings == []
