"""Fixtures of the declarations tests."""

from __future__ import annotations

import pytest
from declaration_repos import release_pair_fixture

release_pair = pytest.fixture(release_pair_fixture)
