"""`lint-migrations` without click: the lint itself, and the plain calls.

`lint_files` reads, lints and reports the files; `commands/migrations.py` prints its reports in
every format. A call of the plain form `lint-migrations FILE... [--json]` (no other option, no
file named with a leading `-` but `-` itself) is answered here without importing click (a
twentieth of a 2,000-file run, a third of a one-file run's text): the JSON always, the text
where click would print it without colour. `quick_lint` returns None for anything else and click
parses it as always. The output and the exit code are the same either way: both print
`json_report` or `text_report`.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from release_safety.cli.inputs import STDIN, Document, read_document, refuse_link_out
from release_safety.cli.rulesoff import rules_off
from release_safety.common.errors import InputError
from release_safety.common.localfile import read_regular
from release_safety.common.spelling import word
from release_safety.contract.finding import Finding
from release_safety.settings.file import find_settings
from release_safety.surfaces.migrations.find.engine import engine_of
from release_safety.surfaces.migrations.find.tools import place

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from pathlib import Path  # loaded where a folder or settings are read: not by a lint of files
    from typing import Any

    from release_safety.settings.model import MigrationSource
    from release_safety.surfaces.migrations.engines.postgres.heaviness import FileAnalysis
    from release_safety.surfaces.migrations.find.tools import Placed
    from release_safety.surfaces.migrations.lint import Format
    from release_safety.surfaces.migrations.reading import Reading
    from release_safety.surfaces.migrations.sql.statements import Extracted

_KNEX_SUFFIXES = (".ts", ".js", ".mjs", ".cjs")
# Compiled when first used (`re` keeps it): a lint of SQL files never pays for them.
_NOT_KNEX = r"\.d\.[cm]?ts$|\.(?:test|spec)\.\w+$"
"""Type declarations and tests beside knex migrations."""
_KNEX_UP = r"\bexports\.up\b|\bexport\s+(?:async\s+)?(?:function|const|let)\s+up\b|\bup\s*[:(]"


class Linted:
    """The files linted: how they were read, one report per file, every finding reported and
    the exit code (1 for a breaking or unknown finding, else 0)."""

    reading: Reading
    documents: list[Document]
    reports: list[dict[str, Any]]
    findings: list[Finding]
    code: int

    def __init__(
        self,
        reading: Reading,
        documents: list[Document],
        reports: list[dict[str, Any]],
        findings: list[Finding],
        code: int,
    ) -> None:
        self.reading = reading
        self.documents = documents
        self.reports = reports
        self.findings = findings
        self.code = code


class Setup:
    """How to read the migrations, the rules turned off, and the settings' sources (None
    without a settings file: every file is then placed as the default search places it)."""

    reading: Reading
    off: frozenset[str]
    sources: tuple[MigrationSource, ...] | None

    def __init__(
        self, reading: Reading, off: frozenset[str], sources: tuple[MigrationSource, ...] | None
    ) -> None:
        self.reading = reading
        self.off = off
        self.sources = sources


def _settings(postgres_version: int | None, config: Path | None = None) -> Setup:
    """How to read the migrations, the rules turned off and the sources, from `config` or the
    nearest settings (walking up to the repository root; the defaults, without loading
    pydantic, when there are none)."""
    from release_safety.surfaces.migrations.reading import Reading

    where = config if config is not None else find_settings(".")
    sources = None
    if where is None:
        reading, off = Reading(), frozenset[str]()
    else:
        from pathlib import Path

        from release_safety.settings.model import load_settings

        settings = load_settings(Path("."), where)
        reading, off = Reading.of(settings), rules_off(settings.rules.off, str(where))
        sources = settings.migrations.sources
    if postgres_version is not None:
        reading = Reading(
            postgres_version,
            reading.placeholders,
            reading.template_default,
            reading.server_timezone,
        )
    return Setup(reading, off, sources)


def _kind(path: str, text: str) -> Format | None:
    """How a file is read as a migration (None: not one)."""
    if path.endswith(".sql"):
        return "sql"
    if (
        path.endswith(_KNEX_SUFFIXES)
        and not re.search(_NOT_KNEX, path)
        and re.search(_KNEX_UP, text)
    ):
        return "knex"
    return None


def _format(name: str, path: str, text: str) -> Format:
    """How to read a migration; anything else is refused (`-` is read as SQL)."""
    kind = "sql" if name == STDIN else _kind(path, text)
    if kind is not None:
        return kind
    why = "a .ts/.js file without an `up` export" if path.endswith(_KNEX_SUFFIXES) else "not .sql"
    raise InputError(f"{name}: not a migration ({why}; lint SQL .sql files or knex migrations)")


def _is_migration(path: Path) -> bool:
    """A regular file named and written like a migration (read within the bounds of
    `read_regular`; a link out of the repository is bad input, never read)."""
    name = path.name
    if not path.is_file() or not (name.endswith(".sql") or name.endswith(_KNEX_SUFFIXES)):
        return False
    refuse_link_out(path)
    return _kind(name, read_regular(path).decode("utf-8", errors="replace")) is not None


class Where:
    """A migration file among its tool's: where it stands, and the engine it runs on."""

    placed: Placed
    engine: str

    def __init__(self, placed: Placed, engine: str) -> None:
        self.placed = placed
        self.engine = engine


def _read_local(path: str) -> str | None:
    return _read_text(path) if os.path.isfile(path) else None


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as file:
        return file.read()


def _below_local(folder: str) -> list[str]:
    return sorted(
        os.path.join(top, name).replace(os.sep, "/")
        for top, _, names in os.walk(folder)
        for name in names
    )


def _posix(name: str) -> str:
    """`Path(name).as_posix()`, without building a Path for a name already written so (no
    `.` part, no doubled or trailing `/`, `/` the separator): most names given."""
    plain = "//" not in name and "./" not in name and not name.endswith(("/", "/."))
    if os.sep == "/" and plain and not name.startswith("."):
        return name
    from pathlib import Path

    return Path(name).as_posix()


class Asked:
    """What a call has asked of the disk to place its files, each asked once: the engine of
    each root (its tool and dialect), and whether a path is a file (a tool's marker beside the
    migrations: a drizzle journal, an `atlas.sum`)."""

    def __init__(self) -> None:
        self.engines: dict[tuple[str, str, str | None], str] = {}
        self.files: dict[str, bool] = {}

    def isfile(self, path: str) -> bool:
        found = self.files.get(path)
        if found is None:
            found = self.files[path] = os.path.isfile(path)
        return found


def _where(name: str, sources: Sequence[MigrationSource] | None, asked: Asked) -> Where:
    """How `generate` places the file: its source (the settings', when there are any), its
    tool, its root, whether it runs forward, and its engine (`asked` of the disk once)."""
    path = _posix(name)
    source = next((s for s in sources or () if s.matches(path)), None)
    if source is not None:
        fmt, dialect = source.format, source.dialect
    else:
        fmt, dialect = ("knex" if name.endswith(_KNEX_SUFFIXES) else "sql"), None
    placed = place(path, fmt, asked.isfile)
    key = (placed.root, placed.tool, dialect)
    engines = asked.engines
    if key not in engines:
        engines[key] = engine_of(placed, dialect, _read_local).engine
    return Where(placed, engines[key])


def _candidates(root: Path) -> list[Path]:
    """The files of a migrations root, and those of its folders per migration."""
    found: list[Path] = []
    for child in sorted(root.iterdir(), key=lambda p: p.name):
        if child.is_dir():
            found += [p for p in sorted(child.iterdir()) if p.name.endswith(".sql")]
        elif _is_migration(child):
            found.append(child)
    return found


def folder_migrations(
    folder: Path, sources: Sequence[MigrationSource] | None = None, asked: Asked | None = None
) -> list[str]:
    """The migrations of a root folder that its tool runs forward, in the order it runs them
    (`formats.order_key`: by version, folder, journal or plan; never a down part); its other
    files (`index.ts`, a README) are left out."""
    from pathlib import Path

    from release_safety.surfaces.migrations.find.formats import listings, order_key

    listing = listings(_read_local, _below_local)
    keyed = []
    asked = Asked() if asked is None else asked
    for path in _candidates(folder):
        where = _where(str(path), sources, asked)
        if not where.placed.forward or Path(where.placed.root or ".") != folder:
            continue
        key = order_key(path.as_posix(), where.placed.tool, listing)
        if key is not None:
            keyed.append((key, str(path)))
    return [path for _, path in sorted(keyed)]


def _expanded(
    files: Sequence[str], sources: Sequence[MigrationSource] | None, asked: Asked
) -> list[str]:
    """Each folder given replaced by its migrations."""
    out: list[str] = []
    for name in files:
        if name != STDIN and os.path.isdir(name):
            from pathlib import Path

            found = folder_migrations(Path(name), sources, asked)
            if not found:
                raise InputError(f"{Path(name)}: a folder without .sql or knex migrations")
            out += found
        else:
            out.append(name)
    return out


Chain = list[tuple[str, bool]]
"""Files linted one on top of the other: each name, and whether its findings are reported."""


def _with_earlier(
    files: Sequence[str], sources: Sequence[MigrationSource] | None, asked: Asked
) -> list[Chain]:
    """One chain per migrations root: its migrations in the order its tool runs them, up to
    the last file given, the files given reported and the earlier ones replayed only; a file
    given that is not a migration of its root comes last (and is refused when read)."""
    from pathlib import Path

    by_root: dict[Path, dict[str, str]] = {}
    for name in files:
        root = Path(_where(name, sources, asked).placed.root or ".")
        by_root.setdefault(root, {})[str(Path(name))] = name
    chains: list[Chain] = []
    for root, given in by_root.items():
        ordered = folder_migrations(root, sources, asked)
        last = max((ordered.index(p) for p in given if p in ordered), default=-1)
        chain: Chain = [
            (given.pop(found), True) if found in given else (found, False)
            for found in ordered[: last + 1]
        ]
        chains.append(chain + [(name, True) for name in given.values()])
    return chains


def lint_files(
    files: Sequence[str],
    postgres_version: int | None,
    excluded: Sequence[str],
    *,
    config: Path | None = None,
    stdin_filepath: str | None = None,
    earlier: bool = False,
    skip_other: bool = False,
) -> Linted:
    """Lint the files in the order given, each on the schema the earlier ones built, without
    the rules the settings or `excluded` turn off. A folder stands for its migrations; with
    `earlier`, each file is linted after the earlier migrations of its folder (replayed, not
    reported); with `skip_other`, a file that is not a migration is left out, not refused."""
    from release_safety.surfaces.migrations.lint import findings_of

    setup = _settings(postgres_version, config)
    reading, sources = setup.reading, setup.sources
    off = setup.off | rules_off(excluded, "--exclude")
    asked = Asked()
    names = _expanded(files, sources, asked)
    if skip_other:
        from pathlib import Path

        names = [n for n in names if n == STDIN or not os.path.isfile(n) or _is_migration(Path(n))]
    wheres = {n: _where(n, sources, asked) for n in names if n != STDIN}
    names = [n for n in names if n == STDIN or wheres[n].placed.forward]  # never a down part
    if earlier:
        chains = _with_earlier([n for n in names if n != STDIN], sources, asked)
        chains += [[(STDIN, True)]] if STDIN in names else []
    else:
        chains = [[(name, True) for name in names]]
    documents: list[Document] = []
    reports: list[dict[str, Any]] = []
    every: list[Finding] = []
    stdin_used = False  # `-` named earlier (not `STDIN in files[:index]`: quadratic in files)
    for chain in chains:
        chained = [name for name, _ in chain]
        engines = [
            "postgres" if n == STDIN else (wheres.get(n) or _where(n, sources, asked)).engine
            for n in chained
        ]
        if _ahead(chained):
            from release_safety.cli.lintahead import ReadAhead

            with ReadAhead(chained, reading, _read) as ahead:
                analysed = list(_analysed(chain, engines, ahead, reading))
        else:
            first = _read_first(chained, stdin_used, stdin_filepath)
            analysed = list(_analysed(chain, engines, first, reading))
        stdin_used |= STDIN in chained
        for document, analysis in analysed:
            documents.append(document)
            findings = [f for f in findings_of(analysis, document.shown) if f.rule not in off]
            every += findings
            reports.append(
                {
                    "file": document.shown,
                    "tables": analysis.tables,
                    "heaviness": {
                        "locksTable": analysis.locks,
                        "rewritesTable": analysis.rewrites,
                        "scansTable": analysis.scans,
                    },
                    "findings": [f.to_dict(omit_none=True) for f in findings],
                }
            )
    worst = 1 if any(f.severity in ("breaking", "unknown") for f in every) else 0
    return Linted(reading, documents, reports, every, worst)


def _read(
    name: str, stdin_used: bool = False, stdin_name: str | None = None
) -> tuple[Document, str, Format]:
    """A file named to the lint: its document, its text and how it is read as a migration."""
    document = read_document(name, stdin_used=stdin_used, stdin_name=stdin_name)
    text = document.data.decode("utf-8", errors="replace")
    return document, text, _format(name, document.shown, text)


def _ahead(names: list[str]) -> bool:
    """Whether a second process reads and splits the chain's files (`lintahead`): many files,
    none of them standard input, and a core to spare: more than one to run on, and fewer
    processes running, on average, than those (on a busy machine the second process would
    only add the packing to the work)."""
    if len(names) < AHEAD_FROM or STDIN in names or not hasattr(os, "fork"):
        return False
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:  # pragma: no cover - a system with fork but no affinity
        cores = os.cpu_count() or 1
    return cores > 1 and os.getloadavg()[0] < cores


def _read_first(
    names: list[str], stdin_used: bool, stdin_name: str | None
) -> list[tuple[Document, str, Format, None]]:
    """The files of a chain, every one read before any is linted (an error reading one is
    raised first), to be split as each is linted (None)."""
    read = []
    for name in names:
        document, text, fmt = _read(name, stdin_used, stdin_name)
        stdin_used |= name == STDIN
        read.append((document, text, fmt, None))
    return read


def _analysed(
    chain: Chain,
    engines: list[str],
    files: Iterable[tuple[Document, str, Format, Extracted | str | None]],
    reading: Reading,
) -> Iterator[tuple[Document, FileAnalysis]]:
    """Each reported file of the chain and its analysis, on the schema the ones before it
    built (`Linter`)."""
    from release_safety.surfaces.migrations.lint import Linter

    linter = Linter(reading)
    for (_, reported), engine, (document, text, fmt, split) in zip(
        chain, engines, files, strict=True
    ):
        analysis = linter.lint(document.shown, text, fmt, engine, split)
        if reported:
            yield document, analysis


AHEAD_FROM = 256
"""The fewest files of a chain read and split by a second process (`lintahead`): it saves the
lint's own process about 20 microseconds of CPU a file and costs it about 4 ms (the fork,
pickle's import, the first batch's wait), so below, it would cost more than it saves."""
FEW_FILES = 50
"""Reports of up to this many files are written by the standard library's `json`, sooner than
orjson is imported (the same bytes: `dumps_plain` is `dumps`, ten times faster)."""


def json_report(linted: Linted) -> str:
    """What `lint-migrations --json` prints."""
    from release_safety.common.jsonio import dumps, dumps_plain  # a text lint loads no json

    data = {"postgresVersion": linted.reading.postgres_version, "files": linted.reports}
    return dumps(data) if len(linted.reports) <= FEW_FILES else dumps_plain(data)


def text_report(reports: list[dict[str, Any]], paint: Callable[[str], str]) -> str:
    """What `lint-migrations` prints as text: each file in the order it runs, its findings by
    line, then the summary line; `paint` colours a severity (`formats.styled`)."""
    from release_safety.cli.render.plain import summary_line

    lines: list[str] = []
    severities: list[str] = []
    for report in reports:
        flags = ", ".join(f"{k}={word(v)}" for k, v in report["heaviness"].items())
        lines.append(f"{report['file']}: tables [{', '.join(report['tables'])}]; {flags}")
        found = sorted(report["findings"], key=lambda f: (f.get("line", 1), f["rule"]))
        for finding in found:
            where = f"{finding['file']}:{finding.get('line', 1)}"
            severity = paint(finding["severity"])
            lines.append(f"  {where}: {severity} {finding['rule']}: {finding['message']}")
            if "hint" in finding:
                lines.append(f"    safer: {finding['hint']}")
        severities += [finding["severity"] for finding in found]
    with_findings = sum(bool(report["findings"]) for report in reports)
    lines.append(summary_line(severities, with_findings, len(reports)))
    return "".join(f"{line}\n" for line in lines)


def _plain(severity: str) -> str:
    return severity


def _text_left_to_click(files: Sequence[str]) -> bool:
    """Whether a plain call without `--json` is left to click: its format is not text (in a
    GitHub Actions job), its text is coloured (on a terminal without NO_COLOR), or it reads
    standard input (read once: a text left to click after all could not read it again)."""
    from release_safety.cli.render.plain import default_format

    if default_format() != "text" or STDIN in files:
        return True
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def quick_lint(args: Sequence[str]) -> int | None:
    """Answer a plain `lint-migrations FILE...` call, `--json` or text (printing it), or None
    to leave it to click. Text is answered here where click would print it as text without
    colour (`_text_left_to_click`) and it holds no escape character (click strips ANSI
    sequences from text). Errors are raised as the click command raises them."""
    if not args or args[0] != "lint-migrations" or args.count("--json") > 1:
        return None
    as_json = "--json" in args
    files = [a for a in args[1:] if a != "--json"]
    if not files or any(a.startswith("-") and a != STDIN for a in files):
        return None
    if not as_json and _text_left_to_click(files):
        return None
    linted = lint_files(files, None, ())
    out = json_report(linted) if as_json else text_report(linted.reports, _plain)
    if "\x1b" in out and not as_json:
        return None  # click strips what looks like a colour sequence: its output, not ours
    sys.stdout.write(out)
    sys.stdout.flush()
    return linted.code
