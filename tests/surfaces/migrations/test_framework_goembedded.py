"""Migrations listed in a Go file (`go-embedded`, miniflux's `internal/database/migrations.go`):
each element of the list one migration in a transaction of its own, the ones a release appends
judged by the SQL they pass to Exec, at their line of the Go file; a shipped element edited is
`shipped-migration-edited`; Go logic the reader cannot model is unknown at its line. The real
CLI on real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from codereleases import ABSENT, judged
from hypothesis import given
from hypothesis import strategies as st

from release_safety.cli.main import run
from release_safety.code.memo import Memo
from release_safety.git.builder import RepoBuilder
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import load_settings
from release_safety.surfaces.migrations.find import golists
from release_safety.surfaces.migrations.find.parts import added_part, edited_line
from release_safety.surfaces.migrations.frameworks import goembedded
from release_safety.surfaces.migrations.frameworks.goembedded import (
    extract_goembedded,
    holds_migrations,
)

PATH = "internal/database/migrations.go"
SETTINGS = (
    ABSENT + '[[migrations.sources]]\npath = "internal/database"\n'
    "pattern = 'migrations\\.go'\nformat = \"go-embedded\"\n"
)
FIRST = [
    """	func(tx *sql.Tx) (err error) {
		sql := `
			CREATE TABLE users (
				id bigserial primary key,
				name text not null
			);
		`
		_, err = tx.Exec(sql)
		return err
	},
""",
    """	func(tx *sql.Tx) (err error) {
		// an index for the login page
		_, err = tx.Exec(`CREATE INDEX users_name_idx ON users (name)`)
		return err
	},
""",
]


def go_file(elements: list[str], header: str = "") -> str:
    """A Go file listing `elements` as miniflux does (line 8 holds the first element)."""
    return (
        "package database\n\n"
        'import "database/sql"\n\n'
        f"var schemaVersion = len(migrations){header}\n\n"
        "var migrations = [...]func(tx *sql.Tx) error{\n" + "".join(elements) + "}\n"
    )


def element(body: str) -> str:
    return f"\tfunc(tx *sql.Tx) (err error) {{\n{body}\t}},\n"


APPENDED_AT = 8 + sum(e.count("\n") for e in FIRST)
"""The line of the first element a release appends to FIRST."""


def _judge(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, name: str, then: str
) -> dict[str, Any]:
    first = {".release-safety.toml": SETTINGS, PATH: go_file(FIRST)}
    return judged(make_repo, tmp_path, name, first, {PATH: then, "README.md": name})


CASES: dict[str, tuple[str, object, list[tuple[str, int]]]] = {
    # a volatile default rewrites the table under ACCESS EXCLUSIVE: caught at its line
    "volatile-default": (
        "\t\t_, err = tx.Exec(`ALTER TABLE users ADD COLUMN token uuid DEFAULT "
        "gen_random_uuid()`)\n\t\treturn err\n",
        False,
        [("blocking-table-lock", APPENDED_AT + 1)],
    ),
    # a dropped column, in a variable bound to a raw literal: at the statement's own line
    "drop-column": (
        "\t\tsql := `\n\t\t\tALTER TABLE users DROP COLUMN name;\n\t\t`\n"
        "\t\t_, err = tx.Exec(sql)\n\t\treturn err\n",
        False,
        [("drop-column", APPENDED_AT + 2)],
    ),
    # a concatenation of literals is read as one string
    "concatenated": (
        '\t\t_, err = tx.Exec("ALTER TABLE users " +\n\t\t\t"DROP COLUMN name")\n\t\treturn err\n',
        False,
        [("drop-column", APPENDED_AT + 1)],
    ),
    # a nullable column without a default: safe
    "add-column": (
        "\t\tif _, err := tx.Exec(`ALTER TABLE users ADD COLUMN age int`); err != nil {\n"
        "\t\t\treturn err\n\t\t}\n\t\treturn nil\n",
        True,
        [],
    ),
    # SQL built at run time: unknown at the Exec, naming it
    "sprintf": (
        '\t\t_, err = tx.Exec(fmt.Sprintf("ALTER TABLE %s ADD COLUMN age int", table))\n'
        "\t\treturn err\n",
        "unknown",
        [("migration-statement-unknown", APPENDED_AT + 1)],
    ),
    # a query whose rows drive Go logic: unknown at each construct the reader cannot model
    "rows-loop": (
        "\t\trows, err := tx.Query(`SELECT id FROM users`)\n"
        "\t\tfor rows.Next() {\n\t\t\trows.Scan(&id)\n\t\t}\n\t\treturn err\n",
        "unknown",
        [
            ("migration-statement-unknown", APPENDED_AT + 1),
            ("migration-statement-unknown", APPENDED_AT + 2),
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_appended_migration_is_judged_at_its_line_of_the_go_file(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, case: str
) -> None:
    body, safe, expected = CASES[case]
    found = _judge(make_repo, tmp_path, case, go_file([*FIRST, element(body)]))
    assert found["rollingUpdateSafe"] == safe, found["because"]
    got = [(f["rule"], f["line"]) for f in found["because"]]
    assert got == expected
    assert all(f["file"] == PATH for f in found["because"])
    if case == "sprintf":
        unknown = found["because"][0]
        assert "`fmt.Sprintf(" in unknown["message"]
        assert unknown["hint"].startswith(f"Pass the SQL of line {APPENDED_AT + 1} to Exec as")
        assert "`// release-safety: acknowledge(migration-statement-unknown):" in unknown["hint"]


def test_a_release_that_appends_nothing_is_judged_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    found = _judge(make_repo, tmp_path, "nothing", go_file(FIRST))
    assert found["rollingUpdateSafe"] is True, found["because"]


def test_an_edited_shipped_migration_fires_at_the_edited_line(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    edited = FIRST[1].replace("ON users (name)", "ON users (lower(name))")
    found = _judge(make_repo, tmp_path, "edited", go_file([FIRST[0], edited]))
    assert found["rollingUpdateSafe"] == "unknown", found["because"]
    [finding] = found["because"]
    line = 8 + FIRST[0].count("\n") + 2
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "shipped-migration-edited",
        PATH,
        line,
    )
    assert f"line {line} of {PATH}" in finding["hint"]


def test_a_shipped_migration_edited_beside_an_appended_one_judges_both(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    edited = FIRST[1].replace("ON users (name)", "ON users (lower(name))")
    dropped = element(
        "\t\t_, err = tx.Exec(`ALTER TABLE users DROP COLUMN name`)\n\t\treturn err\n"
    )
    found = _judge(make_repo, tmp_path, "both", go_file([FIRST[0], edited, dropped]))
    assert found["rollingUpdateSafe"] is False
    rules = sorted(f["rule"] for f in found["findings"] if f["severity"] != "advisory")
    assert rules == ["drop-column", "shipped-migration-edited"]


def test_comments_and_spacing_in_a_shipped_migration_are_no_edit(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    respaced = (
        FIRST[1]
        .replace("an index for", "the index of")
        .replace("ON users (name)", "ON  users(name) ")
    )
    found = _judge(make_repo, tmp_path, "respaced", go_file([FIRST[0], respaced]))
    assert found["rollingUpdateSafe"] is True, found["because"]


def test_a_signature_changed_on_shipped_migrations_is_no_edit(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    """miniflux 2.2.11 dropped the `driver string` parameter from every element: what each
    sends is the same, so nothing shipped was edited; a body changed beside it still is."""
    resigned = go_file(
        [
            e.replace("func(tx *sql.Tx) (err error)", "func(tx *sql.Tx, _ string) error")
            for e in FIRST
        ]
    ).replace("func(tx *sql.Tx) error{", "func(tx *sql.Tx, driver string) error{")
    found = _judge(make_repo, tmp_path, "resigned", resigned)
    assert found["rollingUpdateSafe"] is True, found["because"]
    edited = resigned.replace("ON users (name)", "ON users (lower(name))")
    found = _judge(make_repo, tmp_path, "resigned-edited", edited)
    # its text first differs at the element's own first line (the signature)
    assert [(f["rule"], f["line"]) for f in found["because"]] == [
        ("shipped-migration-edited", 8 + FIRST[0].count("\n"))
    ]


def test_a_shipped_migration_removed_is_an_edit(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    found = _judge(make_repo, tmp_path, "removed", go_file(FIRST[:1]))
    assert [f["rule"] for f in found["because"]] == ["shipped-migration-edited"]


STRINGS = """package store

var schema = []string{
	`CREATE TABLE notes (id serial primary key, body text)`,
	"CREATE INDEX notes_body_idx ON notes (body)",
%s}
"""


@pytest.mark.parametrize(
    ("appended", "safe"),
    [
        ("\t`ALTER TABLE notes DROP COLUMN body`,\n", False),
        ("\t`ALTER TABLE notes ADD COLUMN title text`,\n", True),
    ],
)
def test_a_list_of_sql_strings_is_read_the_same_way(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, appended: str, safe: bool
) -> None:
    settings = ABSENT + '[[migrations.sources]]\npath = "store"\nformat = "go-embedded"\n'
    first = {".release-safety.toml": settings, "store/schema.go": STRINGS % ""}
    name = f"strings-{safe}"
    found = judged(make_repo, tmp_path, name, first, {"store/schema.go": STRINGS % appended})
    assert found["rollingUpdateSafe"] is safe, found["because"]
    if not safe:
        assert [(f["rule"], f["line"]) for f in found["because"]] == [("drop-column", 6)]


def test_each_element_runs_in_its_own_transaction_at_its_own_lines() -> None:
    text = go_file([*FIRST, element('\t\t_, err = tx.ExecContext(ctx, "DROP TABLE old")\n')])
    extracted = extract_goembedded(text, PATH)
    assert [(s.line, s.sql) for s in extracted.statements] == [
        (
            10,
            "CREATE TABLE users (\n\t\t\t\tid bigserial primary key,\n"
            "\t\t\t\tname text not null\n\t\t\t)",
        ),
        (18, "COMMIT"),
        (20, "CREATE INDEX users_name_idx ON users (name)"),
        (23, "COMMIT"),
        (24, "DROP TABLE old"),
    ]
    assert extracted.transactional and extracted.wrapped


def test_a_map_keyed_by_version_runs_in_key_order_and_named_functions_are_followed() -> None:
    text = (
        "package db\n\n"
        "var steps = map[int]func(tx *sql.Tx) error{\n"
        "\t2: addAge,\n"
        "\t1: func(tx *sql.Tx) error {\n"
        "\t\t_, err := tx.Exec(`CREATE TABLE t (id int)`); return err },\n"
        "\t3: other.Migrate,\n"
        "}\n\n"
        "func addAge(tx *sql.Tx) error {\n"
        "\t_, err := tx.Exec(`ALTER TABLE t ADD COLUMN age int`)\n"
        "\treturn err\n"
        "}\n"
    )
    statements = extract_goembedded(text, "db/steps.go").statements
    assert [(s.line, s.sql) for s in statements[:3]] == [
        (6, "CREATE TABLE t (id int)"),
        (4, "COMMIT"),
        (11, "ALTER TABLE t ADD COLUMN age int"),
    ]
    assert statements[-1].sql is None and statements[-1].line == 7
    assert "`other.Migrate`" in (statements[-1].reason or "")


def test_the_added_part_keeps_lines_and_edits_are_placed() -> None:
    old = go_file(FIRST)
    new = go_file([*FIRST, element("\t\t_, err = tx.Exec(`DROP TABLE users`)\n")])
    part = added_part(old, new, PATH, "go-embedded")
    assert part.count("\n") == new.count("\n")
    assert [(s.line, s.sql) for s in extract_goembedded(part, PATH).statements] == [
        (APPENDED_AT + 1, "DROP TABLE users")
    ]
    assert edited_line(old, new, PATH, "go-embedded") is None
    assert edited_line(new, old, PATH, "go-embedded") == APPENDED_AT  # the list's `}`


def test_the_shape_is_recognised_whatever_the_name() -> None:
    assert holds_migrations(go_file(FIRST))
    assert holds_migrations(STRINGS % "")
    assert not holds_migrations('package x\n\nvar names = []string{"a", "b"}\n')
    assert not holds_migrations("package x\n\nvar handlers = []func(w io.Writer) error{}\n")


@pytest.mark.parametrize(
    ("handle", "lists"),
    [
        *[("sql.Tx", True), ("sqlx.DB", True), ("pgx.Conn", True), ("pgxpool.Pool", True)],
        *[("io.Writer", False), ("sql.Rows", False)],
    ],
)
def test_a_list_of_functions_taking_a_database_handle_is_recognised_without_sql(
    handle: str, lists: bool
) -> None:
    """The handle alone (no DDL in the file) makes the shape; another parameter type does not."""
    text = (
        f"package x\n\nvar migrations = []func(tx *{handle}) error{{\n"
        f"\tfunc(tx *{handle}) error {{ return up(tx) }},\n}}\n"
    )
    assert holds_migrations(text) is lists


@pytest.mark.parametrize(
    ("text", "ddl"),
    [
        *[("x := `CREATE TABLE users`", True), ("(drop  Unique\n\tIndex i", True)],
        *[("Alter type t", True), ("é create table", True), ("create ſchema s", True)],
        *[("xCREATE TABLE", False), ("_create table", False), ("alter typed", False)],
        *[("ALTERTABLE", False), ("create tables", False), ("CreateTable(ctx)", False)],
        *[("éCREATE TABLE", False), ("é\u00a0create\u2003table", True), ("é create tables", False)],
        *[("İ create table", True), ("İ xcreate table", False), ("é createé table", False)],
    ],
)
def test_ddl_is_found_as_the_case_insensitive_pattern_finds_it(text: str, ddl: bool) -> None:
    """The lowercased word search gives `_DDL`'s answer, at a word's start only, and the
    non-ASCII text (the long s matches `s` without case) goes to the pattern itself."""
    assert goembedded._has_ddl(text) is ddl
    assert (goembedded._DDL.search(text) is not None) is ddl


ACKNOWLEDGED = "release-safety: acknowledge(blocking-table-lock): users holds a few hundred rows"


@pytest.mark.parametrize("comment", [f"\t\t// {ACKNOWLEDGED}\n", ""])
def test_an_acknowledgement_in_go_or_in_the_sql_accepts_the_finding(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path, comment: str
) -> None:
    sql = "ALTER TABLE users ADD COLUMN token uuid DEFAULT gen_random_uuid()"
    if comment:
        body = f"{comment}\t\t_, err = tx.Exec(`{sql}`)\n\t\treturn err\n"
    else:  # inside the SQL string, as SQL writes it
        body = f"\t\t_, err = tx.Exec(`\n\t\t\t-- {ACKNOWLEDGED}\n\t\t\t{sql}`)\n\t\treturn err\n"
    name = "go-comment" if comment else "sql-comment"
    found = _judge(make_repo, tmp_path, name, go_file([*FIRST, element(body)]))
    assert found["rollingUpdateSafe"] is True, found["because"]
    [accepted] = [f for f in found["findings"] if f["rule"] == "blocking-table-lock"]
    assert accepted["severity"] == "advisory" and "a few hundred rows" in accepted["message"]


def _service(make_repo: Callable[[str], RepoBuilder], name: str, settings: str) -> RepoBuilder:
    """A Go service whose migrations are a list in `store/schema.go` (not named for them),
    released twice: the second release appends a migration dropping a column."""
    repo = make_repo(name)
    first = {"store/schema.go": STRINGS % "", "main.go": "package main\n\nfunc main() {}\n"}
    if settings:
        first[".release-safety.toml"] = settings
    repo.release("1.0.0", first)
    repo.release(
        "1.1.0", {"store/schema.go": STRINGS % "\t`ALTER TABLE notes DROP COLUMN body`,\n"}
    )
    return repo


def test_init_writes_one_go_embedded_source_for_the_file_by_its_shape(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    repo = _service(make_repo, "init", "")
    assert run(["init", "--repo", str(repo.path)]) == 0
    text = (repo.path / ".release-safety.toml").read_text()
    assert (
        "# 3 migration(s) listed in Go in store/schema.go, run in the order of the Go list's "
        "elements, each in a transaction of its own, against one database\n"
        'path = "store"\npattern = \'schema\\.go\'\nformat = "go-embedded"\n'
    ) in text
    assert "written in code" not in text  # read by the source, not left to review
    [source] = load_settings(repo.path, None).migrations.sources
    assert (source.path, source.format, source.matches("store/schema.go")) == (
        "store",
        "go-embedded",
        True,
    )
    assert not source.matches("store/other.go")


def test_a_go_list_no_source_reads_is_not_read_with_the_source_to_add(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    repo = _service(make_repo, "unread", ABSENT)
    found = judged_at(repo, tmp_path, "unread")
    assert found["rollingUpdateSafe"] == "unknown"
    [unread] = [f for f in found["findings"] if f["rule"] == "migration-not-read"]
    assert (unread["file"], unread["line"]) == ("store/schema.go", 3)
    assert "pattern = 'schema\\.go' and format = 'go-embedded'" in unread["hint"]


def test_migrations_declared_absent_beside_a_go_list_are_contradicted(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    absent = ABSENT + '[migrations]\nabsent = "the service keeps no schema of its own at all"\n'
    found = judged_at(_service(make_repo, "absent", absent), tmp_path, "absent")
    assert found["rollingUpdateSafe"] == "unknown"
    [contradicted] = [f for f in found["findings"] if f["rule"] == "absent-contradicted"]
    assert "store/schema.go" in contradicted["message"]


def judged_at(repo: RepoBuilder, tmp_path: Path, name: str) -> dict[str, Any]:
    """The evidence `generate` writes for 1.1.0 of `repo`."""
    evidence = tmp_path / f"{name}.evidence.json"
    args = ["generate", "--repo", str(repo.path), "--to", "1.1.0"]
    run([*args, "--out", str(tmp_path / f"{name}.json"), "--evidence", str(evidence)])
    loaded: dict[str, Any] = json.loads(evidence.read_text())
    return loaded


CONSTANTS = """package db

const usersTable = `CREATE TABLE users (id int, name text)`
const dropName = "ALTER TABLE users " + "DROP COLUMN name"

var migrations = []func(tx *sql.Tx) error{
	func(tx *sql.Tx) error { _, err := tx.Exec(usersTable); return err },
	func(tx *sql.Tx) error { _, err := tx.Exec(dropName); return err },
}
"""


def test_top_level_string_constants_are_read_and_their_edits_seen() -> None:
    statements = extract_goembedded(CONSTANTS, "db/m.go").statements
    assert [(s.line, s.sql) for s in statements] == [
        (3, "CREATE TABLE users (id int, name text)"),
        (8, "COMMIT"),
        (8, "ALTER TABLE users DROP COLUMN name"),
    ]
    edited = CONSTANTS.replace("id int,", "id bigint,")
    assert edited_line(CONSTANTS, edited, "db/m.go", "go-embedded") == 7
    respaced = CONSTANTS.replace('" + "', '"+"')
    assert edited_line(CONSTANTS, respaced, "db/m.go", "go-embedded") is None


STRUCTS = """package db

type Migration struct{ Version int; SQL string }

var migrations = []Migration{
	{Version: 1, SQL: `CREATE TABLE users (id int)`},
%s}
"""


def test_migrations_in_go_of_a_shape_not_read_are_not_read_never_safe(
    make_repo: Callable[[str], RepoBuilder], tmp_path: Path
) -> None:
    repo = make_repo("structs")
    path = "internal/database/migrations.go"
    repo.release("1.0.0", {".release-safety.toml": ABSENT, path: STRUCTS % ""})
    repo.release("1.1.0", {path: STRUCTS % "\t{Version: 2, SQL: `DROP TABLE users`},\n"})
    found = judged_at(repo, tmp_path, "structs")
    assert found["rollingUpdateSafe"] == "unknown"
    [unread] = [f for f in found["findings"] if f["rule"] == "migration-not-read"]
    assert (unread["file"], unread["line"]) == (path, 6)
    assert "acknowledge the release" in unread["hint"]


def test_sql_built_up_with_plus_equals_is_read_and_other_assignments_are_not() -> None:
    body = (
        '\t\tq := "ALTER TABLE users "\n\t\tq += "DROP COLUMN name"\n'
        "\t\t_, err = tx.Exec(q)\n\t\tcounts[0] = 1\n\t\treturn err\n"
    )
    statements = extract_goembedded(go_file([element(body)]), PATH).statements
    assert [(s.line, s.sql) for s in statements] == [
        (11, "ALTER TABLE users DROP COLUMN name"),
        (12, None),
    ]


def test_init_names_the_engine_a_go_list_s_file_name_says(
    make_repo: Callable[[str], RepoBuilder],
) -> None:
    repo = make_repo("engines")
    files = {"store/schema_postgres.go": STRINGS % "", "store/schema_sqlite.go": STRINGS % ""}
    repo.release("1.0.0", files)
    assert run(["init", "--repo", str(repo.path)]) == 0
    sources = load_settings(repo.path, None).migrations.sources
    assert [(s.pattern, s.dialect) for s in sources] == [
        ("schema_postgres\\.go", "postgres"),
        ("schema_sqlite\\.go", "sqlite"),
    ]


def test_a_list_nested_too_deep_is_unknown_never_a_crash() -> None:
    nested = "(" * 5000 + "1" + ")" * 5000
    deep = go_file(FIRST).replace("var schemaVersion", f"var x = {nested}\nvar schemaVersion")
    assert [(s.line, s.sql, s.reason) for s in extract_goembedded(deep, PATH).statements] == [
        (1, None, "go-embedded migration not analysed: nesting too deep")
    ]
    assert edited_line(go_file(FIRST), deep, PATH, "go-embedded") == 1
    assert added_part(go_file(FIRST), deep, PATH, "go-embedded") == deep


def test_a_long_concatenation_is_read_without_recursion() -> None:
    terms = " + ".join(['"x"'] * 20000)
    text = go_file([element(f"\t\t_, err = tx.Exec({terms})\n")])
    assert [(s.line, s.sql) for s in extract_goembedded(text, PATH).statements] == [
        (9, "x" * 20000)
    ]


def test_a_go_list_stays_found_when_the_memo_of_blobs_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search keeps what it found per blob in a bounded memo: a tree read again after the
    memo let some blobs go still names its list."""
    monkeypatch.setattr(golists, "_SEEN", Memo(1))
    tree = MemorySnapshot({PATH: go_file(FIRST), "internal/other.go": "package other\n"})
    assert golists.go_lists(tree) == [PATH]
    assert golists.go_lists(tree) == [PATH]


@given(
    st.lists(
        st.sampled_from(
            [
                *("create", "CREATE", "Alter", "drop", "table", "TABLE", "ſchema", "index"),
                *(" ", "\n", "\u00a0", "_", "x", "é", "İ", "K", "ß", "unique", "view", "ς"),
            ]
        ),
        max_size=12,
    )
)
def test_ddl_is_found_where_the_pattern_finds_it_whatever_the_characters(
    parts: list[str],
) -> None:
    """Any mix of the first and second words, separators and characters whose case is special
    (a dotted I lowercases to two characters, the long s matches `s`)."""
    text = "".join(parts)
    assert goembedded._has_ddl(text) is (goembedded._DDL.search(text) is not None)
