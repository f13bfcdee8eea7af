"""Shell scripts a container runs (an entrypoint): the variables they read from the
environment. `${VAR:-d}` / `${VAR-d}` / `${VAR:=d}` read VAR with the default d, `${VAR:?msg}`
requires it, `${VAR}`, `$VAR` and `${VAR:+x}` read it with no default. A variable the script
assigns before the line (`VAR=...`, `export VAR=...`, `local`, `read VAR`, `for VAR in`) is its
own, not the environment's; the shell's own variables (`HOME`, `PATH`, `PWD`, ...) and
positional ones are left out. Single-quoted text and comments expand nothing."""

from __future__ import annotations

import re

from release_safety.surfaces.config.reads import EnvRead

_READ = re.compile(
    r"\\\$|\$\{(?P<braced>[A-Za-z_]\w*)(?:(?P<op>:?[-=?+])(?P<arg>[^}]*))?\}"
    r"|\$(?P<bare>[A-Za-z_]\w*)"
)
_ASSIGNED = re.compile(
    r"(?:^|[;&|]\s*|\s)(?:(?:export|local|readonly|declare(?:\s+-\w+)*)\s+)?"
    r"(?P<name>[A-Za-z_]\w*)(?:\+)?="
)
_LOOPED = re.compile(r"\b(?:for|read(?:\s+-\w+)*)\s+(?P<names>[A-Za-z_]\w*(?:\s+[A-Za-z_]\w*)*)")
_QUOTED = re.compile(r"'[^']*'")
_COMMENT = re.compile(r"(?:^|\s)#.*$")
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


def parse(data: bytes) -> list[EnvRead]:
    """Every environment variable the script reads, at its first read."""
    own: set[str] = set()
    reads: dict[str, EnvRead] = {}
    for number, raw in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        line = _COMMENT.sub("", _QUOTED.sub("''", raw))
        for match in _READ.finditer(line):
            name = match["braced"] or match["bare"]
            if name is None or name in own or name in SHELL_OWN or name in reads:
                continue
            op, arg = match["op"], match["arg"]
            default = _unquoted(arg) if op in ("-", ":-", "=", ":=") and arg is not None else None
            reads[name] = EnvRead(
                name=name, line=number, default=default, required=op in ("?", ":?")
            )
        own |= {m["name"] for m in _ASSIGNED.finditer(line)}
        own |= {n for m in _LOOPED.finditer(line) for n in m["names"].split()}
    return sorted(reads.values(), key=lambda read: (read.line, read.name))
