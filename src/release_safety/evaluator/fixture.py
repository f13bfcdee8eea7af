"""The evaluator's data file: read as a stream, validated against its JSON Schema, references
and shapes checked; jsonschema-rs says whether the data fits (350x faster than jsonschema on
24,000 runs, bench/bench_libraries.py), jsonschema explains the best-matching error of data
that does not.

A data file of 100,000 runs is over 100 MB of JSON and about five times that as Python
objects, so the runs are never held together: the top-level parts (organization, users,
content...) are read whole, the `queryRuns` array one run at a time, each checked as it comes.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import orjson

from release_safety.common.errors import CheckError, InputError
from release_safety.evaluator.openapi import body_validator, fast_validator, json_document

DATA = "release_safety.data.evaluator"
RUNS = "queryRuns"
CHUNK = 1 << 20  # characters read at a time
MAX_VALUE = 64 << 20  # the largest single value (one run, one top-level part) in characters
_SPACE = re.compile(r"[ \t\n\r]*")
BATCH_CHARS = 256 << 10  # runs read in one go by orjson: about this many characters
BOUNDARY_TRIES = 3  # ends of a batch tried (a `}, {` may also be inside a run)
BACKOFF = 256  # runs read one at a time after a batch orjson refused
CHECKED = 256  # runs held in memory tested against the schema in one call
# orjson reads integers past 64 bits as floats: text with 19 digits in a row is read carefully
# (found as 19 zeros once every digit is a zero: a byte table, far faster than a pattern)
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
_LONG_DIGITS = b"0" * 19


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def token_hash(token: str) -> str:
    """The stored form of a personal access token: its SHA-256 hex digest."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _resource(name: str) -> Any:
    return json.loads(resources.files(DATA).joinpath(name).read_text(encoding="utf-8"))


def data_schema() -> dict[str, Any]:
    """The JSON Schema of the data file (also at `schemas/evaluator-data.schema.json`)."""
    schema: dict[str, Any] = _resource("data.schema.json")
    return schema


def bundled_seed() -> dict[str, Any]:
    """The bundled realistic seed set (also at `fixtures/evaluator/seed.json`)."""
    seed: dict[str, Any] = _resource("seed.json")
    return seed


class _Reader:
    """JSON values one at a time from a UTF-8 file, holding a window of it, not all of it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.handle = path.open("rb")
        except FileNotFoundError as exc:
            raise CheckError(f"{path}: no such file") from exc
        except OSError as exc:
            raise CheckError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.consumed = 0  # characters dropped before `text`
        self.eof = False

    def close(self) -> None:
        self.handle.close()

    def _more(self) -> None:
        try:
            raw = self.handle.read(CHUNK)
            chunk = self.decoder.decode(raw, final=not raw)
        except OSError as exc:
            raise CheckError(f"{self.path}: cannot read: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.path}: not UTF-8: {exc.reason}") from exc
        self.eof = not raw
        self.consumed += self.pos
        self.text = self.text[self.pos :] + chunk
        self.pos = 0

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.path}: not valid JSON: {message} at character {self._at()}")

    def _at(self) -> int:
        return self.consumed + self.pos

    def peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text) or self.eof:
                return self.text[self.pos : self.pos + 1]
            self._more()

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.fail(f"expected {char!r}")
        self.pos += 1

    def values(self) -> list[Any]:
        """Runs ahead read in one go by orjson, each followed by a comma (consumed): from
        here to a `}, {` within BATCH_CHARS at which the text ends a sequence of values.
        Empty when there is none, or when orjson refuses the text (a lone surrogate, a
        number past a double, invalid JSON...): `value()` then reads the next run with the
        standard library's decoder, and reports errors where they are. orjson reads what it
        accepts as that decoder does, but integers past 64 bits, which are never let to it."""
        if self.pos + BATCH_CHARS > len(self.text) and not self.eof:
            self._more()
        limit = min(len(self.text), self.pos + BATCH_CHARS)
        for _ in range(BOUNDARY_TRIES):
            end = self.text.rfind("}", self.pos, limit)
            while end >= 0:
                comma = _SPACE.match(self.text, end + 1).end()  # type: ignore[union-attr]
                if self.text.startswith(",", comma):
                    brace = _SPACE.match(self.text, comma + 1).end()  # type: ignore[union-attr]
                    if self.text.startswith("{", brace):
                        break
                end = self.text.rfind("}", self.pos, end)
            if end < 0:
                return []
            segment = f"[{self.text[self.pos : end + 1]}]".encode()
            if _LONG_DIGITS in segment.translate(_DIGITS_AS_ZERO):
                return []
            try:
                values: list[Any] = orjson.loads(segment)
            except orjson.JSONDecodeError:
                limit = end
                continue
            self.pos = comma + 1
            return values
        return []

    def value(self) -> Any:
        """The next JSON value; more of the file is read while the value is cut short."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise self.fail(exc.msg) from exc
            except ValueError as exc:  # NaN or Infinity, or an integer past Python's digit cap
                raise self.fail(str(exc)) from exc
            except RecursionError as exc:
                raise self.fail("nested too deep") from exc
            else:
                if end < len(self.text) or self.eof:  # a number at the end may go on
                    self.pos = end
                    return value
            if len(self.text) - self.pos > MAX_VALUE:
                raise self.fail(f"a value over {MAX_VALUE} characters")
            self._more()


@dataclass
class DataSet:
    """A data set: the top-level parts but the runs, and where the runs come from.

    From a file, `runs()` streams the `queryRuns` array; a part that follows the array in the
    file is only known once the runs were read (`late_parts`), and a loader then reads the
    runs a second time with every part known."""

    where: str
    parts: dict[str, Any]
    path: Path | None = None
    run_list: list[Any] | None = None
    late_parts: bool = False
    runs_seen: bool = False

    def runs(self) -> Iterator[Any]:
        """The runs, unchecked, in file order."""
        for runs in self.batches():
            yield from runs

    def batches(self) -> Iterator[list[Any]]:
        """The runs, unchecked, in file order, a batch at a time (as read in one go, or a
        run read alone)."""
        if self.path is None:
            runs = self.run_list or []
            for start in range(0, len(runs), CHECKED):
                yield runs[start : start + CHECKED]
            return
        reader = _Reader(self.path)
        try:
            yield from self._walk(reader)
        finally:
            reader.close()

    def _walk(self, reader: _Reader) -> Iterator[list[Any]]:
        reader.expect("{")
        seen: set[str] = set()
        after_runs = False
        while reader.peek() != "}":
            if seen:
                reader.expect(",")
            key = reader.value()
            if not isinstance(key, str):
                raise reader.fail("expected a key")
            if key in seen:
                raise InputError(f"{self.where}: /{key}: duplicate key")
            seen.add(key)
            reader.expect(":")
            if key == RUNS:
                self.runs_seen = after_runs = True
                yield from self._runs(reader)
                continue
            value = reader.value()
            if key not in self.parts:
                self.parts[key] = value
                self.late_parts = self.late_parts or after_runs
        reader.expect("}")
        if reader.peek():
            raise reader.fail("extra data after the document")

    @staticmethod
    def _runs(reader: _Reader) -> Iterator[list[Any]]:
        if reader.peek() != "[":
            yield [reader.value()]  # not an array: the schema check names it
            return
        reader.expect("[")
        if reader.peek() == "]":
            reader.expect("]")
            return
        careful = 0  # runs to read one at a time
        while True:
            if careful:
                careful -= 1
            else:
                batch = reader.values()
                careful = 0 if batch else BACKOFF
                if batch:
                    yield batch
            yield [reader.value()]
            if reader.peek() == "]":
                reader.expect("]")
                return
            reader.expect(",")

    def has_runs(self) -> bool:
        """Whether the document has a `queryRuns` key (known once `runs()` was read)."""
        return self.runs_seen if self.path is not None else self.run_list is not None


def dataset_of(data: Mapping[str, Any], where: str) -> DataSet:
    """A data set held in memory (the seed, a test's data)."""
    parts = {key: value for key, value in data.items() if key != RUNS}
    runs = data.get(RUNS)
    return DataSet(where, parts, run_list=runs if isinstance(runs, list) else None)


def read_data(path: Path | None) -> DataSet:
    """The data set of a file, streamed; without a path, the bundled seed."""
    if path is None:
        return dataset_of(bundled_seed(), "bundled seed")
    reader = _Reader(path)
    reader.close()  # opened once to report a missing or unreadable file now
    return DataSet(str(path), {}, path=path)


def _duplicates(items: list[Any], key: str) -> set[str]:
    seen: set[str] = set()
    dups: set[str] = set()
    for item in items:
        value = item[key]
        (dups if value in seen else seen).add(value)
    return dups


@cache
def _fast_data_validator() -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft202012Validator(data_schema())


@cache
def _run_schema() -> dict[str, Any]:
    """The schema of one run, beside the definitions it refers to."""
    schema = data_schema()
    return {
        "$schema": schema["$schema"],
        "$defs": schema["$defs"],
        **schema["properties"][RUNS]["items"],
    }


@cache
def _run_checks() -> dict[str, Any]:
    """One schema of a run: its schema and the OpenAPI shapes of what it echoes, beside the
    definitions they refer to."""
    shapes = {
        "properties": {
            "requestParameters": {"$ref": "#/components/schemas/ExecuteAsyncQueryRequestParams"},
            "metricQuery": {
                "anyOf": [{"type": "null"}, {"$ref": "#/components/schemas/MetricQuery"}]
            },
        }
    }
    schema = _run_schema()
    run = {key: value for key, value in schema.items() if key not in ("$schema", "$defs")}
    return {
        "$defs": schema["$defs"],
        "components": json_document()["components"],
        "allOf": [run, shapes],
    }


@cache
def _fast_run_validator() -> jsonschema_rs.Validator:
    """One compiled check of a run."""
    return jsonschema_rs.Draft202012Validator(_run_checks())


@cache
def _fast_batch_validator() -> jsonschema_rs.Validator:
    """One compiled check of a list of runs (a call per run costs more than the check)."""
    checks = _run_checks()
    return jsonschema_rs.Draft202012Validator(
        {
            "$defs": checks["$defs"],
            "components": checks["components"],
            "type": "array",
            "items": {"allOf": checks["allOf"]},
        }
    )


def _schema_error(schema: dict[str, Any], value: Any, place: str) -> None:
    """Raise InputError naming the best-matching schema error of an invalid value."""
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(value)
    )
    if error is not None:
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        raise InputError(f"{place}{pointer or '/'}: {error.message}")


def check_parts(data: DataSet) -> None:
    """Raise InputError naming the first schema or reference problem of the parts.

    A compiled validator answers whether the data is valid; only invalid data goes through
    the slower validator that explains the best-matching error."""
    where, parts = data.where, data.parts
    document = {**parts, RUNS: []} if data.has_runs() else parts
    if not _fast_data_validator().is_valid(document):
        _schema_error(data_schema(), document, f"{where}: ")
    for kind in ("projects", "users", "savedCharts", "savedSqlCharts", "dashboards", "spaces"):
        dups = _duplicates(parts.get(kind, []), "uuid")
        if dups:
            raise InputError(f"{where}: /{kind}: duplicate uuid {sorted(dups)[0]}")
    emails = [u["email"].lower() for u in parts["users"]]
    if len(set(emails)) != len(emails):
        raise InputError(f"{where}: /users: duplicate email")
    owners: dict[str, str] = {}
    for user in parts["users"]:
        for token in user.get("tokens", []):
            digest = token.get("tokenHash") or token_hash(token["token"])
            owner = owners.setdefault(digest, user["uuid"])
            if owner != user["uuid"]:
                raise InputError(
                    f"{where}: /users: users {owner} and {user['uuid']} share a token "
                    f"(digest {digest[:12]}...): a token authenticates one user"
                )
    projects = {p["uuid"] for p in parts["projects"]}
    users = {u["uuid"] for u in parts["users"]}
    spaces = {s["uuid"] for s in parts.get("spaces", [])}
    refs = [
        (kind, index, "projectUuid", item.get("projectUuid"), projects)
        for kind in (
            "projectRoles",
            "explores",
            "spaces",
            "savedCharts",
            "savedSqlCharts",
            "dashboards",
            "catalogMetrics",
        )
        for index, item in enumerate(parts.get(kind, []))
    ]
    refs += [
        ("projectRoles", index, "userUuid", item["userUuid"], users)
        for index, item in enumerate(parts.get("projectRoles", []))
    ]
    refs += [
        ("dashboards", index, "createdBy", item["createdBy"], users)
        for index, item in enumerate(parts.get("dashboards", []))
    ]
    refs += [
        (kind, index, "spaceUuid", item["spaceUuid"], spaces)
        for kind in ("savedCharts", "dashboards")
        for index, item in enumerate(parts.get(kind, []))
    ]
    for kind, index, key, value, known in refs:
        if value not in known:
            raise InputError(f"{where}: /{kind}/{index}/{key}: unknown {value!r}")
    for index, chart in enumerate(parts.get("savedCharts", [])):
        _check_shape(chart, "metricQuery", "MetricQuery", f"{where}: /savedCharts/{index}")


def _check_shape(owner: Mapping[str, Any], key: str, schema: str, place: str) -> None:
    """An echoed value must fit the served OpenAPI schema, so every answer fits the document."""
    value = owner[key]
    if fast_validator(schema).is_valid(value):
        return
    error = jsonschema.exceptions.best_match(body_validator(schema).iter_errors(value))
    if error is not None:
        raise InputError(f"{place}/{key}: does not fit {schema}: {error.message}")


class RunChecker:
    """Checks runs one by one against the schema, the parts they name, and each other."""

    def __init__(self, data: DataSet) -> None:
        self.where = data.where
        self.projects = {p["uuid"] for p in data.parts["projects"]}
        self.users = {u["uuid"] for u in data.parts["users"]}
        self.seen: set[str] = set()

    def check(self, index: int, run: Any, fits: bool) -> Mapping[str, Any]:
        """The run, checked (InputError naming its place otherwise), given whether it fits
        its schema (`runs_fit`)."""
        if not fits:
            place = self._place(index)  # explain: the schema, else a shape
            _schema_error(_run_schema(), run, place)
            _check_shape(run, "requestParameters", "ExecuteAsyncQueryRequestParams", place)
            if run.get("metricQuery") is not None:
                _check_shape(run, "metricQuery", "MetricQuery", place)
        uuid = run["queryUuid"]
        if uuid in self.seen:
            raise InputError(f"{self._place(index)}/queryUuid: duplicate queryUuid {uuid!r}")
        self.seen.add(uuid)
        for key, known in (("projectUuid", self.projects), ("userUuid", self.users)):
            if run[key] not in known:
                raise InputError(f"{self._place(index)}/{key}: unknown {run[key]!r}")
        return run  # type: ignore[no-any-return]

    def _place(self, index: int) -> str:
        """Where a run is, for its messages (built only when one is needed)."""
        return f"{self.where}: /{RUNS}/{index}"

    def checked(self, batches: Iterable[list[Any]]) -> Iterator[tuple[int, Mapping[str, Any]]]:
        """The runs of the batches with their places, each checked as it is taken (the schema
        tested a batch at a time, `runs_fit`): a problem of a run is found only once the runs
        before it were used, so the first problem of the data is the one reported."""
        index = 0
        for runs in batches:
            for run, fits in zip(runs, runs_fit(runs), strict=True):
                yield index, self.check(index, run, fits)
                index += 1


def runs_fit(runs: list[Any]) -> list[bool]:
    """Whether each run fits its schema: one call for a batch that does (a call per run costs
    more than the check), then one per run when it does not."""
    if _fast_batch_validator().is_valid(runs):
        return [True] * len(runs)
    return [_fast_run_validator().is_valid(run) for run in runs]


def check_data(data: Mapping[str, Any], where: str) -> None:
    """Check a whole data set held in memory (InputError on the first problem)."""
    dataset = dataset_of(data, where)
    check_parts(dataset)
    for _ in RunChecker(dataset).checked(dataset.batches()):
        pass
