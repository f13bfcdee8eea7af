"""pydantic's plugin loader replaced only where every plugin is off (`common/noplugins.py`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from release_safety.common.noplugins import skip_loader
skip_loader()
from pydantic import BaseModel
class Point(BaseModel):
    x: int
point = Point.model_validate({"x": "3"})
from pydantic.plugin._loader import get_plugins
print(json.dumps({
    "x": point.x,
    "plugins": len(list(get_plugins())),
    "metadata": "importlib.metadata" in sys.modules,
    "real": "__file__" in vars(sys.modules["pydantic.plugin._loader"]),
}))
"""


def _probe(disable: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if disable is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = disable
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("disable", ["__all__", "1", "true"])
def test_every_plugin_off_validates_without_importlib_metadata(disable: str) -> None:
    assert _probe(disable) == {"x": 3, "plugins": 0, "metadata": False, "real": False}


@pytest.mark.parametrize("disable", [None, "logfire", "false"])
def test_plugins_that_may_load_keep_pydantic_s_loader(disable: str | None) -> None:
    found = _probe(disable)
    assert found["x"] == 3 and found["real"] is True and found["metadata"] is True


def test_another_name_asked_of_the_stand_in_loads_pydantic_s_own_loader() -> None:
    probe = (
        "import sys; from release_safety.common.noplugins import skip_loader; skip_loader()\n"
        "from pydantic.plugin._loader import entry_points\n"
        "print('__file__' in vars(sys.modules['pydantic.plugin._loader']))"
    )
    env = {**os.environ, "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "True"
