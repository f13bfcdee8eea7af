"""The migration lint: each file read once, split, and classified against the schema the
files before it built; its rule hits as findings. Pydantic-free, so `lint-migrations` starts
fast; `analyse` runs it over a release's migrations.

Each file is read and split once per blob id, and the analysis of a file on a given schema is
remembered, so consecutive releases (a backfill) redo only what is new.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence

from release_safety.common.textcase import lower
from release_safety.common.value import HashableValue
from release_safety.contract.finding import Finding
from release_safety.surfaces.migrations.acknowledge import acknowledge
from release_safety.surfaces.migrations.budget import Budget, OverBudget
from release_safety.surfaces.migrations.engines.postgres.context import Context
from release_safety.surfaces.migrations.engines.postgres.grammar import prechecked
from release_safety.surfaces.migrations.engines.postgres.heaviness import (
    FileAnalysis,
    LineIssue,
    analyse_extracted,
)
from release_safety.surfaces.migrations.find.formats import outside_transaction
from release_safety.surfaces.migrations.find.tools import migration_name
from release_safety.surfaces.migrations.reading import Reading
from release_safety.surfaces.migrations.rules.ids import RuleId
from release_safety.surfaces.migrations.rules.registered import BLOCKING_TABLE_LOCK, BY_ID
from release_safety.surfaces.migrations.schema.coltypes import is_utc
from release_safety.surfaces.migrations.schema.model import Schema
from release_safety.surfaces.migrations.sql.changelog import is_changelog, read_changelog
from release_safety.surfaces.migrations.sql.sqlfile import extract_sql, statements_of
from release_safety.surfaces.migrations.sql.statements import Extracted

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final, TypeVar

    from release_safety.surfaces.annotations import Parsed
    from release_safety.surfaces.migrations.find.formats import Reader

    Format = Reader
    K = TypeVar("K")
    V = TypeVar("V")
ReadModule = Callable[[str], str | None]
_KEPT = 256
_EXTRACTED: OrderedDict[tuple[str, str, str], Extracted | str] = OrderedDict()
_ANALYSES: OrderedDict[tuple[str, str, str, frozenset[str]], tuple[FileAnalysis, Schema]] = (
    OrderedDict()
)
NO_HISTORY = "no earlier migration was given"
# What the annotation scanner looks for first (in any ASCII case, as it compares bytes): a file
# without it has no acknowledgement, and the declarations surface need not be loaded to say so.
# Sought in the lowered text (a sixth of a case-blind regex's time): lowering finds every ASCII
# spelling, and what else it may find only costs a scan that finds nothing.
_MAY_ANNOTATE = "safety"
# Compiled when first used (`re` keeps it): read only for a file with such metadata.
_NO_TRANSACTION = r"(?m)^\s*run_in_transaction\s*=\s*false\b"


def remember(cache: OrderedDict[K, V], key: K, value: V) -> V:
    """`value`, kept in `cache` under `key` (the oldest entry dropped past _KEPT)."""
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > _KEPT:
        cache.popitem(last=False)
    return value


class History(HashableValue):
    """The schema a sequence of migrations leaves, under the key of that sequence ("" when
    unkeyed: nothing is remembered of it, nor of the sequences that continue it)."""

    FIELDS = ("key", "schema")

    key: Final[str]
    schema: Final[Schema]

    def __init__(self, key: str, schema: Schema) -> None:
        self.key = key
        self.schema = schema


def _sha1(text: str) -> str:
    import hashlib  # here: the one-shot lint keys nothing, and need not load it

    return hashlib.sha1(text.encode()).hexdigest()


def next_key(key: str, path: str, blob: str) -> str:
    """The key of a sequence of migrations followed by one more file ("" after "")."""
    return _sha1(f"{key}\0{path}\0{blob}") if key else ""


def start(reading: Reading, schema: Schema | None = None) -> History:
    """The history before any migration: an empty schema (a fresh database), or `schema`."""
    base = schema if schema is not None else Schema()
    digest = _sha1(repr(base)) if schema is not None else ""
    return History(_sha1(f"{reading.key()}\0{digest}"), base)


def _constant(text: str) -> Callable[[], str]:
    return lambda: text


def extract(
    text: str, path: str, fmt: Format, reading: Reading, read_module: ReadModule | None = None
) -> Extracted:
    """A file's statements: SQL split directly, knex translated by the knex extractor
    (which resolves constants imported from other files through `read_module`). A leading
    byte-order mark is not part of the first statement. Raises ValueError, SyntaxError or
    OverBudget."""
    text = text.removeprefix("\ufeff")
    Budget.check_size(text)
    if fmt != "sql":
        from release_safety.surfaces.migrations.frameworks import extract_code

        return extract_code(fmt, text, path, read_module=read_module)
    if is_changelog(path):  # a Liquibase changelog a liquibase source claims
        return read_changelog(text, path, read_module, lambda sql: statements_of(sql, reading))
    mode = _transaction(path, read_module)
    return extract_sql(text, reading, autocommit=mode == "outside", wrapped=mode == "wrapped")


def _transaction(path: str, read_module: ReadModule | None) -> str:
    """How the tool runs a SQL file, as far as its name and its neighbours say: "outside" a
    transaction (popx's `.autocommit`, diesel's `run_in_transaction = false`), "wrapped" in
    one for certain (diesel), else "" (one script, unless a statement cannot run in one)."""
    if outside_transaction(path):
        return "outside"
    if not migration_name(path).endswith("/up.sql"):
        return ""
    return "outside" if _diesel_outside(path, read_module) else "wrapped"


def _diesel_outside(path: str, read_module: ReadModule | None) -> bool:
    """True when diesel runs the migration outside a transaction: its folder's
    `metadata.toml` says `run_in_transaction = false`."""
    folder, _, name = path.rpartition("/")
    if name != "up.sql" or read_module is None:
        return False
    metadata = read_module(f"{folder}/metadata.toml")
    return metadata is not None and re.search(_NO_TRANSACTION, metadata) is not None


def _extracted(
    text: Callable[[], str],
    blob: str,
    path: str,
    fmt: Format,
    reading: Reading,
    read_module: ReadModule | None,
) -> Extracted | str:
    """A file's statements, once per blob (a file without one, read directly, is not
    remembered); a string says why the file cannot be read."""
    mode = _transaction(path, read_module) if fmt == "sql" else ""
    key = (blob, f"{fmt}:{mode}", reading.key()) if blob else None
    found = _EXTRACTED.get(key) if key is not None else None
    if found is None:
        try:
            found = extract(text(), path, fmt, reading, read_module)
        except OverBudget as exc:
            found = f"over budget: {exc}"
        except (ValueError, SyntaxError, RecursionError) as exc:
            found = f"could not read the file: {exc}"
        if key is not None:
            remember(_EXTRACTED, key, found)
    return found


_UTC: dict[str, bool] = {}
"""Whether each server time zone named is UTC (`is_utc`), asked once per zone, not per file."""


def _context(
    schema: Schema,
    before: Schema,
    reading: Reading,
    replay: bool,
    release_created: frozenset[str],
) -> Context:
    zone = reading.server_timezone
    utc = _UTC.get(zone)
    if utc is None:
        utc = _UTC[zone] = is_utc(zone)
    return Context(
        schema, before, reading.postgres_version, utc, utc, None, release_created, replay
    )


def _unreadable(reason: str) -> FileAnalysis:
    rule = (
        RuleId.MIGRATION_OVER_BUDGET
        if reason.startswith("over budget")
        else (RuleId.MIGRATION_UNPARSEABLE)
    )
    if rule == RuleId.MIGRATION_OVER_BUDGET:
        hint = (
            f"Split the file ({reason}): load bulk data outside the schema migration (COPY "
            "from a file, a job) and keep the schema change in a file of its own."
        )
    else:
        hint = f"Fix the file so PostgreSQL can read it: {reason}."
    issue = LineIssue(rule, 1, reason, hint)
    return FileAnalysis([], "unknown", "unknown", "unknown", [issue])


def apply(
    history: History,
    path: str,
    blob: str,
    text: Callable[[], str],
    fmt: Format,
    reading: Reading,
    *,
    before: History | None = None,
    release_created: frozenset[str] = frozenset(),
    read_module: ReadModule | None = None,
    engine: str = "postgres",
    split: Extracted | str | None = None,
) -> tuple[FileAnalysis | None, History]:
    """One migration run on the schema `history` left: its analysis (None when replaying,
    `before` not given) judged against the schema as of the previous release, and the history
    it leaves; a file for another engine than PostgreSQL is judged as that engine runs it
    (`engines.neutral`). `split`: its statements when already split (`split_file`)."""
    after_key = next_key(history.key, path, blob)
    replay = before is None
    # the release's created tables as they are (their hash is kept by the set, shared by the
    # files that create nothing): a sorted text of them per file grew with the release
    key = (
        (history.key, before.key if before else "", after_key + engine, release_created)
        if blob and history.key
        else None
    )
    if not replay and key is not None and key in _ANALYSES:
        cached, schema = _ANALYSES[key]
        return cached, History(after_key, schema)
    extracted = (
        split if split is not None else _extracted(text, blob, path, fmt, reading, read_module)
    )
    # a history without a key is not kept: its schema is read only as the previous release
    schema = history.schema.copy(hand_over=before is history and not history.key)
    analysis: FileAnalysis | None
    if isinstance(extracted, str):
        schema.lose_everything(f"{path}: {extracted}")
        analysis = None if replay else _unreadable(extracted)
    elif engine != "postgres":
        from release_safety.surfaces.migrations.engines.neutral import judge

        written_in = None if fmt == "sql" else "postgres"  # a framework's reader writes it
        found = judge(extracted, engine, schema, release_created, written_in=written_in)
        analysis = None if replay else found
    else:
        ctx = _context(
            schema, before.schema if before else schema, reading, replay, release_created
        )
        try:
            found = analyse_extracted(extracted, ctx)
        except OverBudget as exc:
            schema.lose_everything(f"{path}: over budget: {exc}")
            found = _unreadable(f"over budget: {exc}")
        analysis = None if replay else found
    if analysis is not None and key is not None:
        remember(_ANALYSES, key, (analysis, schema))
    return analysis, History(after_key, schema)


def schema_of(sql: str, reading: Reading, engine: str = "postgres") -> Schema:
    """The schema a SQL script builds on `engine` (a fixture's history, say)."""
    _, history = apply(
        start(reading), "history.sql", "", _constant(sql), "sql", reading, engine=engine
    )
    return history.schema


def analyse_text(
    text: str,
    path: str,
    fmt: Format,
    reading: Reading,
    read_module: ReadModule | None = None,
    history: Schema | None = None,
    engine: str = "postgres",
) -> FileAnalysis:
    """Analyse one migration file's text against `history`, the schema as of the previous
    release (unknown when not given); an unreadable file is unknown throughout."""
    base = start(reading, history if history is not None else Schema(unknown=NO_HISTORY))
    analysis, _ = apply(
        base,
        path,
        "",
        _constant(text),
        fmt,
        reading,
        before=base,
        read_module=read_module,
        engine=engine,
    )
    assert analysis is not None
    return with_acknowledgements(analysis, text, path, fmt)


def split_file(text: str, path: str, fmt: Format, reading: Reading) -> Extracted | str:
    """A file's statements as `Linter.lint` splits a file (no blob id, no neighbours read), or
    why it cannot be read: that part of the lint needs no schema (`cli/lintahead.py`); with
    the grammar's checks each statement passes (`prechecked`) and the statements of a DO
    block's body (`plpgsql.ahead`), which need none either."""
    found = _extracted(_constant(text), "", path, fmt, reading, None)
    if not isinstance(found, str):
        for statement in found.statements:
            toks = statement.toks
            if toks:
                statement.checked = prechecked(toks)
                if toks[0].key == "DO":  # and the statements of its body
                    from release_safety.surfaces.migrations.engines.postgres import plpgsql

                    statement.bodies = plpgsql.ahead(toks)
    return found


class Linter:
    """Files linted one after the other, each against the schema the ones before it built
    (the first against an unknown one). Nothing is remembered of them (no blob ids), so their
    history has no key."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.history = History("", Schema(unknown=NO_HISTORY))

    def lint(
        self,
        path: str,
        text: str,
        fmt: Format,
        engine: str = "postgres",
        split: Extracted | str | None = None,
    ) -> FileAnalysis:
        """The next file's analysis (`split`: its statements, when split ahead)."""
        history = self.history
        analysis, self.history = apply(
            history,
            path,
            "",
            _constant(text),
            fmt,
            self.reading,
            before=history,
            engine=engine,
            split=split,
        )
        assert analysis is not None
        return with_acknowledgements(analysis, text, path, fmt)


def lint_texts(
    files: Sequence[tuple[str, str, Format]],
    reading: Reading,
    engines: Sequence[str] | None = None,
) -> list[FileAnalysis]:
    """Analyse files (path, text, format) in the order given, each against the schema the ones
    before it built (`Linter`), each on its engine (`engines`, else PostgreSQL)."""
    linter = Linter(reading)
    return [
        linter.lint(path, text, fmt, engines[k] if engines is not None else "postgres")
        for k, (path, text, fmt) in enumerate(files)
    ]


def with_acknowledgements(
    analysis: FileAnalysis, text: str, path: str, fmt: Format
) -> FileAnalysis:
    """The analysis with the file's acknowledgement comments attached."""
    acknowledgements: tuple[Parsed, ...] = ()
    if _MAY_ANNOTATE in lower(text):
        from release_safety.surfaces.annotations import scan
        from release_safety.surfaces.comments import syntax_for

        syntax = syntax_for(path) or syntax_for("x.ts" if fmt == "knex" else "x.sql")
        acknowledgements = scan(text.encode("utf-8"), syntax) if syntax is not None else ()
        if fmt == "go-embedded":  # `//` in the Go code, `--` in the SQL its strings hold
            found = acknowledgements + scan(text.encode("utf-8"), syntax_for("x.sql"))
            acknowledgements = tuple(sorted(found, key=lambda attempt: attempt.line))
    if acknowledgements == analysis.acknowledgements:
        return analysis
    return analysis.with_acknowledgements(acknowledgements)


def findings_of(
    analysis: FileAnalysis, path: str, new_tables: Collection[str] = ()
) -> list[Finding]:
    """The file's rule hits as findings with its path, line and the way out written for the
    case (the rule's safe alternative where none was);
    a blocking lock on a table that existed at the previous release (not one of `new_tables`,
    created by an earlier migration of the same release) is a breaking finding of its own; the
    file's acknowledgements are applied last."""
    findings: list[Finding] = []
    for issue in analysis.issues:
        rule = BY_ID[issue.rule]
        findings.append(rule.finding("migrations", issue.message, path, issue.line, issue.hint))
    for heavy in analysis.heavy:
        if heavy.table in new_tables:
            continue
        work = "rewritten" if heavy.rewrites else "read"
        specific = next((f.hint for f in findings if f.line == heavy.line and f.hint), None)
        locked = f"{heavy.table} is locked ({heavy.lock.label})"
        waits = "the previous release's queries on it wait for all of it"
        if heavy.held == "lock":
            message = f"{locked} by LOCK TABLE until its transaction commits: {waits}"
            specific = specific or (
                f"Drop the LOCK TABLE of {heavy.table} (each statement takes the lock it "
                "needs), or keep the rest of its transaction to brief statements, set "
                "lock_timeout and acknowledge it with that reason."
            )
        elif heavy.held == "wait":
            message = f"{locked} while this statement makes its transaction wait: {waits}"
            specific = specific or (
                f"Remove the wait, or commit before it so {heavy.table} is not held."
            )
        else:
            message = f"{locked} while every row is {work}: {waits}"
            specific = specific or (
                f"Do the work on {heavy.table} without holding {heavy.lock.label} over every "
                f"row (COMMIT before line {heavy.line}, a batched job after the rollout), or "
                "accept it above the statement: `-- release-safety: acknowledge(blocking-table-"
                f"lock): <why {heavy.table} is small enough>`."
            )
        findings.append(
            BLOCKING_TABLE_LOCK.finding("migrations", message, path, heavy.line, specific)
        )
    return acknowledge(findings, analysis.acknowledgements, analysis.statement_lines, path)
