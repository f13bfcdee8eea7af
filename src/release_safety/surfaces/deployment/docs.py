"""docs/deployment-rules.md, rendered from the rules and the catalogue of stateful kinds (a test
keeps the file in sync)."""

from __future__ import annotations

import release_safety.surfaces.deployment.rules  # noqa: F401  (registers the rules)
from release_safety.contract.reports import RULES
from release_safety.settings.model import DEFAULT_DEPLOYMENT_SOURCES, DEVELOPER_WORDS
from release_safety.surfaces.deployment.catalogue import KINDS

INTRO = """# Deployment rules

Generated from `src/release_safety/surfaces/deployment/rules.py` and `catalogue.py` by
`release_safety.surfaces.deployment.docs.render()`; edit those, not this file.

The deployment surface reads what a self-hosted service ships to run it, at both refs, and says
what a release does to the services around the application: the database, cache, search index
or broker it bundles, the services and volumes of its compose files, the values and
dependencies of its Helm charts. It reads the files `[deployment] sources` names (paths, or
globs with `*`, `?`, `[` and `**`), by default {defaults}, outside vendored, test, example and
hidden folders. A glob also leaves out developer-only files, whose name or folder has a word
(split at `-`, `_`, `.`) among {developer} that the glob does not name itself
(`docker-compose-dev.yml`, `Dockerfile.dev`, `docker/dev/compose.yml`, `.devcontainer/`), and
`[deployment] exclude` (globs) leaves out the rest; the coverage lists each file left out and
why (`unmodelled`), and a deployment declared `absent` stays so when every descriptor found is
left out. The kind of a file is the one its source says (`[[deployment.sources]] path = "...",
kind = "compose"`, `"helm"` or `"dockerfile"`), else its name's: `Chart.yaml` is a Helm chart
(with the `requirements.yaml`, `values.yaml`, `values-*.yaml` / `values.*.yaml` and
`templates/` beside it; `ci/*-values.yaml` are the chart's tests and are not read), `Dockerfile`,
`dockerfile`, `Dockerfile.*`, `Dockerfile-*`, `*.Dockerfile` and `Containerfile` are Dockerfiles
(one folder of them builds one component), any other YAML file is a compose file (with the
`.env` beside it, which compose reads for interpolation, and the files it pulls in: its
top-level `include:`, a service's `extends: {{file:}}` and `env_file:`, read as compose runs
them; one that is remote, outside the repository or missing is
`deployment-compose-reference-unread`); else its content's: a file whose first
instruction past its `ARG`s is `FROM` is a Dockerfile. A file of no kind is
`deployment-descriptor-kind-unknown`.

- **Nothing found at either ref**: the surface is not checked and the release cannot be `true`;
  a service that ships no descriptor says so: `[deployment] absent = "operators deploy with
  their own manifests"`.
- **A file that cannot be read** (invalid YAML, a compose file without `services`, a chart
  without `name`, a Dockerfile BuildKit's parser refuses) leaves the surface not checked;
  breaks found in the other files still count. A file byte for byte the same at both refs
  changes nothing and is not parsed again.
- **A file that moved** is followed: a lone compose file gone and a lone one new, a chart by
  its `name`, a Dockerfile folder gone to a new folder that declares the same `VOLUME`.
- Image references are parsed as the distribution/reference grammar does (docker-image-py):
  registries with ports, `library/` and Docker Hub's domain, tags and digests. Compose
  interpolation is applied, nested defaults too (`${{PG_TAG:-${{PG_MAJOR:-16}}}}` reads 16); a
  placeholder that cannot be resolved reads as no version, so a change of it is
  `deployment-stateful-version-unreadable`.
- **A stateful service's data** is followed beyond its mounts: `PGDATA` (in `environment` or
  an `env_file`) moved inside the same volume, an `entrypoint` / `command` that removes a
  mounted folder or `$PGDATA` (`rm`, `rmdir`, `find -delete`, `shred`, `mkfs`, `dropdb`), and a
  service given `profiles` (no longer started by `docker compose up`) are breaking. Not read:
  data folders set by command-line flags (`--datadir`, `-D`) or by variables of other products
  than PostgreSQL, scripts an entrypoint calls, and the profiles operators enable
  (`COMPOSE_PROFILES`): a service given profiles reads as switched off.
- **Remaining gaps**: an `include:`'s own `project_directory` and `env_file` (its files are
  read from its folder, with the including file's `.env`); values files of a chart outside its
  folder (`values/production.yaml`, an operator's own `-f`); a remote or missing file compose
  pulls in is `unknown` (`deployment-compose-reference-unread`) whenever the stack changes.

**How a deployment finding decides.** Deployment findings flow into the verdict like every
other surface's (docs/verdict.md): a breaking one makes `rollingUpdateSafe` false (Recreate),
an unknown one `"unknown"`, advisories change nothing. The artifact has no deployment object
(the interface's contract stays closed): the findings are in the evidence file and in the
release notes' "Deployment" section, and the verdict reaches operators through
`compatibility` and the index.

## Stateful components

A component is stateful when it keeps data on disk that its next version must read. Its kind
comes from a word of an image's last path component (`bitnami/postgresql`,
`goharbor/redis-photon`; not a tool beside it such as `postgres-exporter` or `mongo-express`),
an OS package installed in a Dockerfile (`tdnf`, `apt-get`, `apk`, `dnf`, `yum`, `zypper`), the
server an `ENTRYPOINT` / `CMD` runs, or a version variable (`ENV PG_MAJOR=15`). Bare version
arguments of an exec-form `ENTRYPOINT` / `CMD` (harbor's `["/docker-entrypoint.sh", "15",
"18"]`) carry the version of the folder's one stateful kind. The series is the part of the
version that changes only with a major upgrade, by each product's own upgrade documentation;
any 0.x version counts its minor as the major (semantic versioning), and a `bitnami/` image
is read by its product's word (`bitnami/postgresql:16.2.0-debian-12-r5` is PostgreSQL 16).

| kind | image words | server package (regular expression) | server commands | series |
| --- | --- | --- | --- | --- |
"""

RULES_INTRO = """
## Rules

Images of stateless components (the application's own, proxies, workers) are not judged: the
other surfaces judge what the application does. An image the catalogue does not know whose
compose service mounts a writable volume or host folder may keep data, though: when its major
version (first number; minor for 0.x) moves, the release is `unknown`
(`deployment-uncatalogued-major-changed`) unless `[deployment] stateless` names its repository;
each such image is listed in the coverage (`unmodelled`), each catalogued one in
`understood`. Read-only and tmpfs mounts hold no state and are not judged either. A Helm
value's default that changes is not judged (image tags change every release); its removal or
renaming is.

| id | severity | title |
| --- | --- | --- |
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _series(parts: int) -> str:
    return {0: "none (dated releases)", 1: "first number", 2: "first two numbers"}[parts]


def render() -> str:
    """The whole page."""
    defaults = ", ".join(f"`{d}`" for d in DEFAULT_DEPLOYMENT_SOURCES)
    developer = ", ".join(f"`{w}`" for w in sorted(DEVELOPER_WORDS))
    lines = [INTRO.format(defaults=defaults, developer=developer).rstrip("\n")]
    for kind in KINDS:
        series = _series(kind.series_parts)
        if kind.name == "postgres":
            series += " (two before 10: `9.6`); a `pg16` tag gives the major"
        elif kind.tag is not None:
            series += f" (tags: `{_cell(kind.tag.pattern)}`)"
        words = ", ".join(f"`{w}`" for w in sorted(kind.words))
        commands = ", ".join(f"`{c}`" for c in sorted(kind.commands))
        package = _cell(kind.packages.pattern)
        lines.append(f"| {kind.name} | {words} | `{package}` | {commands} | {series} |")
    lines.append(RULES_INTRO.rstrip("\n"))
    found = [rule for rule in RULES.values() if rule.surface == "deployment"]
    lines += [f"| `{r.id}` | {r.severity} | {_cell(r.title)} |" for r in found]
    for rule in found:
        lines += ["", f"### `{rule.id}`", "", f"{rule.title} ({rule.severity}). {rule.why}"]
        examples = [("Unsafe", f"`{_cell(rule.unsafe)}`"), ("Safer", _cell(rule.safe))]
        shown = [f"- {label}: {text}" for label, text in examples if text.strip("`")]
        lines += ["", *shown] if shown else []
    return "\n".join(lines) + "\n"
