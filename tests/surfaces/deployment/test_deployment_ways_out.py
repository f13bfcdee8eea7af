"""Each deployment finding's way out names its case: the service, volume, variable, value,
dependency or component it is about, never the catalogue's example."""

from __future__ import annotations

from deployment_support import Pair, report

from release_safety.contract.reports import RULES

COMPOSE = """\
services:
  app:
    image: example/app:1.0.0
  worker:
    image: example/worker:1.0.0
    volumes:
      - jobs:/srv/jobs
  db:
    image: postgres:15.6
    volumes:
      - pgdata:/var/lib/postgresql/data
volumes:
  pgdata:
  jobs:
"""
CHANGED = """\
services:
  app:
    image: example/app:1.1.0
    environment:
      SIGNING_KEY: ${SIGNING_KEY:?set it}
  db:
    image: postgres:18.1
volumes:
  pgdata:
"""


def test_compose_findings_name_their_service_volume_and_variable(release_pair: Pair) -> None:
    found = report(release_pair, {"compose.yaml": COMPOSE}, {"compose.yaml": CHANGED})
    hints = {f.rule: f.hint or "" for f in found.findings}
    expected = {
        "deployment-service-removed": "`worker`",
        "deployment-volume-removed": "`jobs`",
        "deployment-required-env-added": "`SIGNING_KEY`",
        "deployment-stateful-major-changed": "postgres 15 -> 18",
    }
    for rule, named in expected.items():
        assert named in hints[rule], (rule, hints[rule])
        assert hints[rule] != RULES[rule].safe
