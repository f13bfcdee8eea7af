"""Container image references, parsed as the distribution/reference grammar does
(docker-image-py): `postgres:15.6-alpine`, `docker.io/library/postgres`,
`registry.example.com:8443/team/redis:7.2@sha256:...`, `localhost:5000/pg:15`.

A reference with a placeholder the tool cannot resolve (`${VERSION}`, `{{ .Values.tag }}`) keeps
its name where the name is literal; the unresolved part reads as no version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docker_image import reference  # type: ignore[import-untyped]

from release_safety.surfaces.deployment.catalogue import Kind, kind_of_name, version

_PLACEHOLDER = re.compile(r"\$\{(?:[^{}]|\$\{[^}]*\})*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*?\}\}")
_UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class Image:
    """One image reference: the text as written, its repository in the familiar form
    (`postgres`, `bitnami/postgresql`, `localhost:5000/pg`), tag and digest."""

    text: str
    repository: str
    tag: str | None
    digest: str | None

    @property
    def kind(self) -> Kind | None:
        return kind_of_name(self.repository)

    @property
    def versioned(self) -> str:
        """The part of the reference that says which version: tag and digest (the whole text
        when the tag holds a placeholder, so a change of what it would resolve to is seen)."""
        if self.tag is not None and _UNRESOLVED in self.tag:
            return self.text
        return f"{self.tag or ''}@{self.digest or ''}"

    @property
    def version(self) -> tuple[int, ...] | None:
        """The version numbers the tag starts with; None for `latest`, a digest alone or a
        placeholder."""
        if self.tag is None or _UNRESOLVED in self.tag:
            return None
        return version(self.tag, self.kind)


def parse_image(text: str) -> Image | None:
    """The reference `text` names, or None when it is no valid image reference."""
    literal = _PLACEHOLDER.sub(_UNRESOLVED, text.strip())
    try:
        parsed = reference.Reference.parse_normalized_named(literal)
    except reference.InvalidReference:
        return None
    return Image(
        text.strip(), _familiar(parsed.domain(), parsed.path()), parsed["tag"], parsed["digest"]
    )


def _familiar(domain: str, path: str) -> str:
    """The repository as people write it: Docker Hub's domain and `library/` left out."""
    if domain != reference.DEFAULT_DOMAIN:
        return f"{domain}/{path}"
    return path.removeprefix(f"{reference.OFFICIAL_REPO_NAME}/")
