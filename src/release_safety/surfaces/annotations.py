"""Annotation comments declaring a break or acknowledging a rule, and their grammar
(docs/declarations.md, docs/migration-rules.md).

    annotation := "release-safety:" SP kind [ "(" option { "," option } ")" ] [ ":" ] SP reason
    kind       := "breaking" | "acknowledge"
    option     := "required-stop"          (breaking)
                | rule id                  (acknowledge: at least one)
    reason     := text to the end of the comment line, plus continuation lines

The annotation must open a comment's text (after its opener and any `*`, `/`, `!`, `#`, `-`
decoration). Continuation: in a block comment, the following non-blank lines that start at or
right of the marker's column, up to a blank line or a `@tag` line; in a run of line comments
with the same opener, each on its own line, the following lines whose text starts right of the
marker's column. Any comment whose text opens with something like `release-safety:` (any case,
`_` or space for `-`) is an attempt: when it does not follow the grammar it is malformed, never
ignored.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from release_safety.settings.reasons import normalise
from release_safety.surfaces.comments import Comment, CommentLine, Syntax, comments

MARKER = "release-safety:"
KINDS = ("breaking", "acknowledge")
OPTIONS = ("required-stop",)
ACKNOWLEDGE = "acknowledge"
_RULE_ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_ATTEMPT = re.compile(r"release[-_ ]?safety[ \t]*:", re.IGNORECASE)
_DECORATION = "*/!#-;% \t"
_KIND = re.compile(r"[A-Za-z][\w-]*")


@dataclass(frozen=True)
class Annotation:
    """A well-formed annotation: where it is, what it declares (or which rules it
    acknowledges)."""

    line: int
    kind: str
    required_stop: bool
    reason: str
    rules: tuple[str, ...] = ()

    def key(self) -> tuple[str, ...]:
        return ("annotation", self.kind, str(self.required_stop), *self.rules, self.reason)


@dataclass(frozen=True)
class Malformed:
    """A comment that tries to be an annotation and does not follow the grammar; `kind` is
    the kind it names when that much is right."""

    line: int
    text: str
    problem: str
    kind: str | None = None

    def key(self) -> tuple[str, ...]:
        return ("malformed", normalise(self.text))


Parsed = Annotation | Malformed


def _body(line: CommentLine) -> tuple[int, str]:
    """The column where the text starts once decoration is stripped, and that text."""
    stripped = line.text.lstrip(_DECORATION)
    return line.column + len(line.text) - len(stripped), stripped.rstrip()


def parse(text: str, line: int) -> Parsed:
    """Parse one annotation's text (marker first, continuation already joined)."""
    if not text.startswith(MARKER):
        found = _ATTEMPT.match(text)
        written = found.group() if found else text[: len(MARKER)]
        return Malformed(line, text, f"the marker is written {written!r}, not {MARKER!r}")
    rest = text[len(MARKER) :]
    if not rest[:1].isspace():
        return Malformed(line, text, f"expected a space after {MARKER!r}")
    rest = rest.lstrip()
    kind_match = _KIND.match(rest)
    if kind_match is None or kind_match.group() not in KINDS:
        word = kind_match.group() if kind_match else rest[:20]
        return Malformed(line, text, f"unknown kind {word!r} (expected one of {', '.join(KINDS)})")
    kind = kind_match.group()
    rest = rest[kind_match.end() :]
    options: list[str] = []
    if rest.startswith("("):
        close = rest.find(")")
        if close < 0:
            return Malformed(line, text, "an option list opened with '(' is not closed", kind)
        options = [o.strip() for o in rest[1:close].split(",")]
        rest = rest[close + 1 :]
    problem = _options_problem(kind, options)
    if problem:
        return Malformed(line, text, problem, kind)
    rest = rest.removeprefix(":")
    if rest and not rest[:1].isspace():
        problem = f"expected a space before the reason, found {rest[:10]!r}"
        return Malformed(line, text, problem, kind)
    reason = normalise(rest)
    if not reason:
        return Malformed(line, text, "the reason is missing", kind)
    if kind == ACKNOWLEDGE:
        return Annotation(line, kind, False, reason, tuple(options))
    return Annotation(line, kind, "required-stop" in options, reason)


def _options_problem(kind: str, options: list[str]) -> str | None:
    """What is wrong with a kind's option list, None when nothing is."""
    if kind == ACKNOWLEDGE:
        if not options:
            return "`acknowledge` names the rules it acknowledges: acknowledge(rule-id, ...)"
        bad = next((o for o in options if not _RULE_ID.fullmatch(o)), None)
        return f"{bad!r} is not a rule id" if bad is not None else None
    for option in options:
        if option not in OPTIONS:
            return f"unknown option {option!r} (expected one of {', '.join(OPTIONS)})"
    return None


def _attempts(found: Sequence[Comment]) -> list[Parsed]:
    """Annotations in a list of comments, continuation lines joined."""
    parsed: list[Parsed] = []
    for index, comment in enumerate(found):
        for position, line in enumerate(comment.lines):
            column, body = _body(line)
            if not _ATTEMPT.match(body):
                continue
            if comment.kind == "block":
                more = _block_continuation(comment.lines[position + 1 :], column)
            else:
                more = _line_continuation(found, index, comment, column)
            parsed.append(parse(" ".join([body, *more]), line.line))
    return parsed


def _block_continuation(lines: Sequence[CommentLine], column: int) -> list[str]:
    more: list[str] = []
    for line in lines:
        start, body = _body(line)
        if not body or start < column or body.startswith("@") or _ATTEMPT.match(body):
            break
        more.append(body)
    return more


def _line_continuation(
    found: Sequence[Comment], index: int, first: Comment, column: int
) -> list[str]:
    more: list[str] = []
    last = first.lines[0].line
    for comment in found[index + 1 :]:
        line = comment.lines[0]
        if (
            comment.kind != "line"
            or comment.opener != first.opener
            or not comment.own_line
            or line.line != last + 1
        ):
            break
        start, body = _body(line)
        if not body or start <= column or _ATTEMPT.match(body):
            break
        more.append(body)
        last = line.line
    return more


def is_binary(data: bytes) -> bool:
    """Git's rule: a NUL byte in the first 8000 bytes."""
    return b"\0" in data[:8000]


_PREFILTER = re.compile(rb"release[-_ ]?safety")  # over lower-cased bytes: case-insensitive
_MEMO: OrderedDict[tuple[str, str], tuple[Parsed, ...]] = OrderedDict()
_MEMO_SIZE = 8192


def scan(data: bytes, syntax: Syntax) -> tuple[Parsed, ...]:
    """Every annotation attempt in a file's bytes (none in binaries)."""
    if is_binary(data):
        return ()
    lowered = data.lower()
    if b"safety" not in lowered or not _PREFILTER.search(lowered):
        return ()
    return tuple(_attempts(comments(data.decode("utf-8", errors="replace"), syntax)))


def remembered(blob_id: str, syntax: Syntax) -> tuple[Parsed, ...] | None:
    """What `scan_blob` found when the blob was scanned before with this syntax, else None."""
    key = (blob_id, syntax.name)
    found = _MEMO.get(key)
    if found is not None:
        _MEMO.move_to_end(key)
    return found


def scan_blob(blob_id: str, data: bytes, syntax: Syntax) -> tuple[Parsed, ...]:
    """`scan`, remembered per blob id and syntax, so a blob seen before need not be read."""
    result = scan(data, syntax)
    _MEMO[(blob_id, syntax.name)] = result
    if len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return result
