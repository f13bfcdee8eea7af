"""What a source says about the environment: one `EnvRead` per place a variable is read, and
one `Gap` per place configuration is read in a way the reader does not model.

A reader returns both in one list (`Reading`); the surface keeps the reads as variables and
the gaps as its coverage's `unmodelled` record."""

from __future__ import annotations

from dataclasses import dataclass


class SourceError(ValueError):
    """A source that could not be parsed; `line` is where the parser gave up (1-based), `path`
    the file when a reader of several files raises it."""

    def __init__(self, message: str, line: int = 1, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.path = path


@dataclass(frozen=True)
class EnvRead:
    """One read of an environment variable.

    - `default`: the value used when the variable is unset (literal text, or the source text of
      a non-literal expression), None when there is none;
    - `required`: the program fails at start-up without it (`os.environ["X"]`, `process.env.X!`,
      `if (!process.env.X) throw`, `required:"true"`, an empty value in an example file);
    - `site`: where the value goes (the assigned name, object key or struct field), which a
      rename usually keeps;
    - `fallback_for`: the variable this read is a fallback of (`process.env.NEW ||
      process.env.OLD`), None for a primary read;
    - `listed`: only listed, by a file of examples (an env example, a template): the name is
      known, its value proves nothing;
    - `key`: a config-file key (`database.port`), not an environment variable.
    """

    name: str
    line: int
    default: str | None = None
    required: bool = False
    site: str | None = None
    fallback_for: str | None = None
    listed: bool = False
    key: bool = False
    via: str | None = None
    """The loader the name comes from, when it is not read directly (`envconfig.Process at
    cmd/config.go:40`): a loader lost at once takes all its variables with it."""


@dataclass(frozen=True)
class Gap:
    """A place a source reads configuration in a way the reader does not model.

    - `what`: what is not modelled, in one line (`process.env[key]: a computed name`,
      `koanf.Load: the koanf library is not modelled`);
    - `way_out`: how to resolve it, for this case (a settings key to add, a source to name);
    - `blocking`: the gap stands between the tool and the variables (an unmodelled config
      library loads them), so every release is unknown while it is there; otherwise only a
      release that changes its file is;
    - `path`: the file, when a reader of several files reports it.
    """

    line: int
    what: str
    way_out: str
    blocking: bool = False
    path: str | None = None
    subject: str | None = None
    """What the gap is about, as a digest (a schema's `if`/`then` subtree): a release whose
    previous ref has the same gap with the same subject changed nothing the gap hides."""


Reading = list[EnvRead | Gap]
"""What a reader returns: every read it resolved and every gap it met, in source order."""
