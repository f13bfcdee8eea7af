"""What a source says about the environment: one `EnvRead` per place a variable is read."""

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
