"""Shell scripts a container runs (an entrypoint): the variables they read from the
environment. `${VAR:-d}` / `${VAR-d}` / `${VAR:=d}` read VAR with the default d, `${VAR:?msg}`
requires it, `${VAR}`, `$VAR` and `${VAR:+x}` read it with no default. A variable the script
assigns before the line (`VAR=...`, `export VAR=...`, `local`, `read VAR`, `for VAR in`) is its
own, not the environment's; the shell's own variables (`HOME`, `PATH`, `PWD`, ...) and
positional ones are left out. Single-quoted text and comments expand nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from release_safety.common.shellvars import Variable, scan
from release_safety.surfaces.config.reads import EnvRead

_ASSIGNED = re.compile(
    r"(?:^|[;&|]\s*|\s)(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?"
    r"(?P<name>[A-Za-z_]\w*)(?:\+)?="
)
_LOOPED = re.compile(r"\b(?:for|read(?:\s+-\w+)*)\s+(?P<names>[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*)")
SHELL_OWN = frozenset(
    {
        *("HOME", "PATH", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "HOSTNAME", "IFS"),
        *("PS1", "PS2", "PS4", "TERM", "UID", "EUID", "GID", "RANDOM", "LINENO", "SECONDS"),
        *("OPTARG", "OPTIND", "OPTERR", "REPLY", "PPID", "BASH", "BASHPID", "BASH_SOURCE"),
        *("BASH_VERSION", "FUNCNAME", "PIPESTATUS", "SHLVL", "HOSTTYPE", "OSTYPE", "MACHTYPE"),
        *("TMPDIR", "LANG", "LC_ALL"),
    }
)


def _unquoted(default: str) -> str:
    text = default.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _expanding(line: str) -> str:
    """The line with what the shell does not expand blanked: single-quoted text outside double
    quotes, an escaped `\\$`, and a comment."""
    out: list[str] = []
    double = False
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\" and i + 1 < len(line):
            out.append("  ")
            i += 2
            continue
        if char == '"':
            double = not double
        elif char == "'" and not double:
            end = line.find("'", i + 1)
            end = len(line) if end == -1 else end
            out.append(" " * (end + 1 - i))
            i = end + 1
            continue
        elif char == "#" and not double and (i == 0 or line[i - 1].isspace()):
            break
        out.append(char)
        i += 1
    return "".join(out)


def _variables(text: str) -> Iterator[Variable]:
    """The variables of `text`, those inside another's argument too (`${A:-${B:-2}}`); `$$`,
    the shell's process id, is none."""
    for found in scan(text):
        if isinstance(found, Variable):
            yield found
            yield from _variables(found.arg)


def parse(data: bytes) -> list[EnvRead]:
    """Every environment variable the script reads, at its first read."""
    own: set[str] = set()
    reads: dict[str, EnvRead] = {}
    for number, raw in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        line = _expanding(raw)
        own |= {n for m in _LOOPED.finditer(line) for n in m["names"].split()}
        for found in _variables(line):
            name, op = found.name, found.op
            if name in own or name in SHELL_OWN or name in reads:
                continue
            default = _unquoted(found.arg) if op in ("-", ":-", "=", ":=") else None
            reads[name] = EnvRead(
                name=name, line=number, default=default, required=op in ("?", ":?")
            )
        own |= {m["name"] for m in _ASSIGNED.finditer(line)}
    return sorted(reads.values(), key=lambda read: (read.line, read.name))
