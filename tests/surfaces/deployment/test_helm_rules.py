"""Helm rules, each both ways, on real git repositories: a chart at v1.0.0, edited at v1.0.1."""

from __future__ import annotations

import pytest
from deployment_support import Pair, judged

CHART = """\
apiVersion: v2
name: app
version: 1.4.0
appVersion: "2.3.0"
dependencies:
  - name: postgresql
    version: 12.12.10
    repository: oci://registry-1.docker.io/bitnamicharts
  - name: redis
    version: "~18.1.0"
    repository: oci://registry-1.docker.io/bitnamicharts
"""
VALUES = """\
image:
  repository: example/app
  tag: ""
upgrade:
  mode: RollingUpdate
strategy:
  type: RollingUpdate
persistence:
  enabled: true
  size: 8Gi
postgresql:
  image:
    registry: docker.io
    repository: bitnami/postgresql
    tag: 15.4.0-debian-11-r10
"""
TEMPLATE = """\
apiVersion: apps/v1
kind: StatefulSet
spec:
  template:
    spec:
      containers:
        - name: search
          image: "docker.elastic.co/elasticsearch/elasticsearch:8.11.1"
        - name: app
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.Name }}"
"""
FILES = {
    "deploy/chart/Chart.yaml": CHART,
    "deploy/chart/values.yaml": VALUES,
    "deploy/chart/templates/search.yaml": TEMPLATE,
}


def edit(path: str, old: str, new: str) -> dict[str, str | None]:
    text = FILES[path]
    assert old in text, old
    return {path: text.replace(old, new)}


CHART_FILE, VALUES_FILE = "deploy/chart/Chart.yaml", "deploy/chart/values.yaml"
TEMPLATE_FILE = "deploy/chart/templates/search.yaml"

CASES = [
    (
        "dependency-major",
        edit(CHART_FILE, "12.12.10", "15.5.0"),
        [("deployment-chart-dependency-major-changed", "breaking", CHART_FILE, 6)],
    ),
    ("dependency-minor", edit(CHART_FILE, "12.12.10", "12.14.2"), []),
    ("dependency-range-minor", edit(CHART_FILE, '"~18.1.0"', '"~18.2.0"'), []),
    (
        "dependency-removed",
        edit(CHART_FILE, CHART[CHART.index("  - name: redis") :], ""),
        [("deployment-chart-dependency-removed", "breaking", CHART_FILE, 9)],
    ),
    ("chart-version-bump", edit(CHART_FILE, "version: 1.4.0", "version: 2.0.0"), []),
    (
        "values-image-major",
        edit(VALUES_FILE, "15.4.0-debian-11-r10", "16.1.0-debian-12-r2"),
        [("deployment-stateful-major-changed", "breaking", VALUES_FILE, 15)],
    ),
    (
        "values-image-patch",
        edit(VALUES_FILE, "15.4.0-debian-11-r10", "15.4.0-debian-11-r12"),
        [("deployment-stateful-updated", "advisory", VALUES_FILE, 15)],
    ),
    (
        "value-removed",
        edit(VALUES_FILE, "  size: 8Gi\n", ""),
        [("deployment-value-removed", "breaking", VALUES_FILE, 10)],
    ),
    (
        "value-renamed",
        edit(
            VALUES_FILE,
            "persistence:\n  enabled: true\n  size: 8Gi\n",
            "storage:\n  size: 8Gi\n  enabled: true\n",
        ),
        [("deployment-value-renamed", "breaking", VALUES_FILE, 8)],
    ),
    ("value-added", edit(VALUES_FILE, "  size: 8Gi\n", "  size: 8Gi\n  storageClass: fast\n"), []),
    ("value-default-changed", edit(VALUES_FILE, "8Gi", "16Gi"), []),
    (
        "upgrade-mode-recreate",
        edit(VALUES_FILE, "mode: RollingUpdate", "mode: Recreate"),
        [("deployment-strategy-recreate", "breaking", VALUES_FILE, 5)],
    ),
    (
        "strategy-recreate",
        edit(VALUES_FILE, "type: RollingUpdate", "type: Recreate"),
        [("deployment-strategy-recreate", "breaking", VALUES_FILE, 7)],
    ),
    (
        "strategy-back-to-rolling",
        edit(VALUES_FILE, "mode: RollingUpdate", "mode: Rolling"),
        [("deployment-strategy-changed", "advisory", VALUES_FILE, 5)],
    ),
    (
        "template-image-major",
        edit(TEMPLATE_FILE, "elasticsearch:8.11.1", "elasticsearch:9.0.1"),
        [("deployment-stateful-major-changed", "breaking", TEMPLATE_FILE, 8)],
    ),
    (
        "template-engine-changed",
        edit(
            TEMPLATE_FILE,
            "docker.elastic.co/elasticsearch/elasticsearch:8.11.1",
            "opensearchproject/opensearch:2.11.1",
        ),
        [("deployment-stateful-engine-changed", "breaking", TEMPLATE_FILE, 8)],
    ),
    (
        "template-component-removed",
        edit(
            TEMPLATE_FILE,
            '        - name: search\n          image: "docker.elastic.co/elasticsearch/'
            'elasticsearch:8.11.1"\n',
            "",
        ),
        [("deployment-stateful-component-removed", "breaking", CHART_FILE, 1)],
    ),
    (
        "template-app-image-edit",
        edit(TEMPLATE_FILE, "default .Chart.Name", 'default "dev"'),
        [],
    ),
    (
        "chart-removed",
        {
            CHART_FILE: None,
            VALUES_FILE: None,
            TEMPLATE_FILE: None,
            "docker-compose.yml": "services: {}\n",
        },
        [("deployment-chart-removed", "breaking", CHART_FILE, 1)],
    ),
    (
        "chart-moved",
        {
            CHART_FILE: None,
            VALUES_FILE: None,
            TEMPLATE_FILE: None,
            "charts/app/Chart.yaml": CHART,
            "charts/app/values.yaml": VALUES,
            "charts/app/templates/search.yaml": TEMPLATE,
        },
        [],
    ),
]


@pytest.mark.parametrize(("name", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_helm_rule(
    release_pair: Pair,
    name: str,
    new: dict[str, str | None],
    expected: list[tuple[str, str, str, int]],
) -> None:
    assert judged(release_pair, dict(FILES), new) == expected


def test_requirements_of_an_apiversion_1_chart_are_dependencies(release_pair: Pair) -> None:
    old = {
        "chart/Chart.yaml": "apiVersion: v1\nname: app\nversion: 1.0.0\n",
        "chart/requirements.yaml": "dependencies:\n  - name: postgresql\n    version: 8.6.4\n",
    }
    new = {"chart/requirements.yaml": "dependencies:\n  - name: postgresql\n    version: 10.3.1\n"}
    assert judged(release_pair, old, new) == [
        ("deployment-chart-dependency-major-changed", "breaking", "chart/requirements.yaml", 2)
    ]
