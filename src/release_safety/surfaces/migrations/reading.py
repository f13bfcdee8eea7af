"""What reading and judging a migration file depends on besides its text, without pydantic:
`lint-migrations` with no settings file uses the defaults, a release its settings'."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from release_safety.settings.file import (
    DEFAULT_POSTGRES_VERSION,
    DEFAULT_SERVER_TIMEZONE,
    DEFAULT_TEMPLATE,
)

if TYPE_CHECKING:
    from release_safety.settings.model import Settings


class Reading(NamedTuple):
    """The PostgreSQL major version, the template placeholders (literal text replaced before
    parsing, then what any remaining `{{ ... }}` becomes) and the server's TimeZone."""

    postgres_version: int = DEFAULT_POSTGRES_VERSION
    placeholders: Mapping[str, str] = {}  # never written to: read as a Mapping
    template_default: str = DEFAULT_TEMPLATE
    server_timezone: str = DEFAULT_SERVER_TIMEZONE

    @classmethod
    def of(cls, settings: Settings) -> Reading:
        migrations = settings.migrations
        return cls(
            postgres_version=settings.postgres_version,
            placeholders=migrations.placeholders,
            template_default=migrations.template_default,
            server_timezone=migrations.server_timezone,
        )

    def key(self) -> str:
        """The reading as a cache key (the text a dataclass of it had, `Reading(...)`)."""
        return repr(self)
