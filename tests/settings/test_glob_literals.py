"""A settings glob's literal parts, checked before RE2 (`settings/model.glob_literals`): the
check only refuses paths the glob cannot match, so every answer stays RE2's."""

from __future__ import annotations

import itertools

import pytest
import re2  # type: ignore[import-untyped]

from release_safety.common.patterns import compile_pattern
from release_safety.settings.model import compile_glob, glob_literals, glob_regex

GLOBS = [
    "src/**/*.go",
    "**/migrations",
    "**/*_test.go",
    "make/harbor.yml.tmpl",
    "/make/harbor.yml.tmpl",
    "a/**/b/**/c",
    "ab**cd",
    "**",
    "*",
    "**/",
    "a/**",
    "{a,b}.go",
    "src/{a,b}/*.go",
    "[ab]c/d?e",
    "x[a-z]*.go",
    "a[*/]b.go",
    "[!m]*.go",
    "foo\\*.go",
    "foo\\?bar/*.go",
    "x ",
    " x",
    "a /b",
    "!foo",
    "#foo",
    "./a",
    "db/*/migrations",
    "**/priv/*/migrations",
    "**/*mock*/**",
]

PATHS = [
    "src/main.go",
    "src/a/b/c.go",
    "src/x.go/y.txt",
    "lib/src/main.go",
    "srcx/main.go",
    "migrations",
    "db/migrations/1.sql",
    "a/migrations/x/y.sql",
    "amigrations/1.sql",
    "pkg/x_test.go",
    "make/harbor.yml.tmpl",
    "make/harbor.yml.tmplx",
    "a/b/c",
    "a/x/b/y/c",
    "a/c",
    "abcd",
    "abxxcd",
    "ab/cd",
    "{a,b}.go",
    "a.go",
    "src/{a,b}/m.go",
    "src/a/m.go",
    "ac/d1e",
    "cc/dxe",
    "xq1.go",
    "ab.go",
    "a*b.go",
    "a/b.go",
    "m1.go",
    "n1.go",
    "foo*.go",
    "foox.go",
    "foo?bar/m.go",
    "foo1bar/m.go",
    "x",
    "x ",
    " x",
    "x/y",
    "a /b",
    "a/b",
    "!foo",
    "#foo",
    "./a",
    "a",
    "db/1/migrations/x.sql",
    "app/priv/repo/migrations/1.exs",
    "src/mocks/m.go",
    "src/a_mock_b/m.go",
    "/abs",
    "",
]


def _re2(glob: str, path: str) -> bool:
    options = re2.Options()
    options.log_errors = False
    return re2.compile(glob_regex(glob), options=options).fullmatch(path) is not None


@pytest.mark.parametrize("glob", GLOBS)
def test_the_check_changes_no_answer(glob: str) -> None:
    matched = [path for path in PATHS if compile_glob(glob).fullmatches(path)]
    assert matched == [path for path in PATHS if _re2(glob, path)]


def test_some_globs_match_some_paths() -> None:
    """The grid above is not all refusals: both answers occur."""
    answers = {compile_glob(g).fullmatches(p) for g, p in itertools.product(GLOBS, PATHS)}
    assert answers == {True, False}


@pytest.mark.parametrize(
    ("glob", "literals"),
    [
        ("src/**/*.go", ("src", (".go",))),
        ("/src/**/*.go", ("src", (".go",))),
        ("**/migrations", ("", ("migrations",))),
        ("**/*_test.go", ("", ("_test.go",))),
        ("make/harbor.yml.tmpl", ("make", ("harbor.yml.tmpl",))),
        ("a/**/b/**/c", ("a", ("b", "c"))),
        ("**", ("", ())),
        ("{a,b}.go", ("{a,b}.go", ())),  # no braces in the dialect: literal
        ("[ab]c/d?e", ("", ("d", "e"))),  # a bracket's part is left out
        ("a[*/]b.go", ("", ())),
        ("foo\\*.go", ("", (".go",))),  # an escape's part is left out
        ("x ", ("x", ())),  # `.gitignore` drops trailing spaces
        (" x", (" x", ())),  # but not leading ones
        ("**/*mock*/**", ("", ("mock",))),
    ],
)
def test_literals(glob: str, literals: tuple[str, tuple[str, ...]]) -> None:
    assert glob_literals(glob) == literals


def test_a_text_without_the_pieces_is_refused_before_the_expression() -> None:
    """The pieces are asked first: an expression matching anything still refuses a text
    missing them (firing), and matches one holding them in order (quiet)."""
    pattern = compile_pattern("(?s:.*)", "src", (".go", "x"))
    assert not pattern.fullmatches("lib/a.go/x")
    assert not pattern.fullmatches("src/x.go")  # out of order
    assert pattern.fullmatches("src/a.go/x")
