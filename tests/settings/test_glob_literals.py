"""A settings glob's literal parts, checked before RE2 (`settings/model.glob_literals`): the
check only refuses paths the glob cannot match, so every answer stays RE2's."""

from __future__ import annotations

import itertools

import pytest
import re2  # type: ignore[import-untyped]

from release_safety.common.patterns import ANY_LINE, compile_pattern
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
    "**/[Dd]ockerfile*",
    "**/*.[Dd]ockerfile",
    "a[]]b",
    "a[!]]b",
    "a[^x]b",
    "a[b",
    "a[*?]b",
    "a[/]b",
    "[a[]x",
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
    "make/photon/db/Dockerfile",
    "make/photon/db/dockerfile.base",
    "x/app.Dockerfile",
    "x/Dockerfile.md/y",
    "a]b",
    "axb",
    "a[b",
    "a[/]b",
    "a*b",
    "a?b",
    "ax",
    "]x",
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
        ("[ab]c/d?e", ("", ("c", "d", "e"))),  # a bracket is one character
        ("**/[Dd]ockerfile*", ("", ("ockerfile",))),
        ("a[]]b", ("a", ("b",))),  # a `]` first is one of the bracket's characters
        ("a[!]]b", ("a", ("b",))),
        ("a[*?]b", ("a", ("b",))),  # wildcards in a bracket are characters
        ("a[*/]b.go", ("a", ("]b.go",))),  # `a[*` and `]b.go`: no bracket across folders
        ("a[b", ("a", ())),  # a bracket that does not close: the rest left out
        ("[[:alpha:]]x", ("", ())),  # a class inside: left out
        ("foo\\*.go", ("foo", ())),  # from an escape on, the part is left out
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


def test_random_globs_answer_as_re2() -> None:
    """Globs and paths drawn from the characters the dialect treats specially: the check
    never refuses a path RE2 matches (deterministic draw)."""
    import random

    draw = random.Random(48)
    glob_chars = ["a", "b", "/", "*", "**/", "?", "[", "]", "!", "^", "\\", ".", " ", "ab"]
    path_chars = ["a", "b", "/", ".", " ", "[", "]", "!", "*", "?", "\\", "ab"]
    paths = ["".join(draw.choices(path_chars, k=draw.randint(1, 8))) for _ in range(60)]
    compared = 0
    for _ in range(1500):
        glob = "".join(draw.choices(glob_chars, k=draw.randint(1, 7)))
        try:
            expected = [path for path in paths if _re2(glob, path)]
        except Exception:  # a glob pathspec or RE2 refuses: not a settings glob
            continue
        assert [path for path in paths if compile_glob(glob).fullmatches(path)] == expected, glob
        compared += bool(expected)
    assert compared > 100  # many globs match some path


@pytest.mark.parametrize("glob", ["**", "/**"])
def test_a_glob_naming_every_file_answers_as_re2_without_it(glob: str) -> None:
    """`**` becomes `ANY_LINE`, answered without RE2: the same answers, a line break first
    (or nothing) refused (firing), any other text matched (quiet)."""
    assert glob_regex(glob) == ANY_LINE
    texts = [*PATHS, "\n", "\nx", "a\nb", "a\n", "\u00e9/\u00fc.go", "\r", "\t/x"]
    matched = [text for text in texts if compile_glob(glob).fullmatches(text)]
    assert matched == [text for text in texts if _re2(glob, text)]
    assert not compile_glob(glob).fullmatches("\nx")
    assert compile_glob(glob).fullmatches("a\nb")


def test_any_line_with_pieces_still_asks_for_them() -> None:
    """The shortcut is for the bare pattern: with literal pieces they are still asked."""
    pattern = compile_pattern(ANY_LINE, "src", (".go",))
    assert not pattern.fullmatches("lib/a.go")
    assert pattern.fullmatches("src/a.go")
