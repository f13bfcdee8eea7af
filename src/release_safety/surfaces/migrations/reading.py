"""What reading and judging a migration file depends on besides its text, without pydantic:
`lint-migrations` with no settings file uses the defaults, a release its settings'."""

from __future__ import annotations

from collections.abc import Mapping

from release_safety.common.value import HashableValue
from release_safety.settings.file import (
    DEFAULT_POSTGRES_VERSION,
    DEFAULT_SERVER_TIMEZONE,
    DEFAULT_TEMPLATE,
)

TYPE_CHECKING = False  # no typing at run time: the lint's start (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Final

    from release_safety.settings.model import Settings


class Reading(HashableValue):
    """The PostgreSQL major version, the template placeholders (literal text replaced before
    parsing, then what any remaining `{{ ... }}` becomes) and the server's TimeZone."""

    FIELDS = ("postgres_version", "placeholders", "template_default", "server_timezone")

    postgres_version: Final[int]
    placeholders: Final[Mapping[str, str]]
    template_default: Final[str]
    server_timezone: Final[str]

    def __init__(
        self,
        postgres_version: int = DEFAULT_POSTGRES_VERSION,
        placeholders: Mapping[str, str] = {},
        template_default: str = DEFAULT_TEMPLATE,
        server_timezone: str = DEFAULT_SERVER_TIMEZONE,
    ) -> None:
        self.postgres_version = postgres_version
        self.placeholders = placeholders
        self.template_default = template_default
        self.server_timezone = server_timezone

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
