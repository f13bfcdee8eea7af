"""The service's own code a route source names (`routes/read.own_code`): test files left out
by their name, asked of the name's words before the expression."""

from __future__ import annotations

from release_safety.surfaces.rest.routes.read import _TESTS, own_code

PATHS = [
    "src/server.go",
    "src/server_test.go",
    "src/server.test.ts",
    "src/server.spec.ts",
    "app/test_views.py",
    "app/conftest.py",
    "app/views.py",
    "app/testing.py",
    "app/latest.go",
    "web/contest.ts",
    "test/helpers.go",
    "src/a.test.tsx",
    "src/spec.ts",
    "src/x.spec.",
]


def test_test_files_are_left_out_as_the_expression_says() -> None:
    expected = [p for p in PATHS if not _TESTS.fullmatches(p) and not p.startswith("test/")]
    assert own_code(PATHS) == expected
    assert "src/server.go" in expected and "app/latest.go" in expected  # quiet
    assert "src/server_test.go" not in expected and "app/conftest.py" not in expected  # firing
