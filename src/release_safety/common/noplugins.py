"""pydantic with its plugins off, without the import its plugin loader makes to look for them.

The command line turns pydantic's plugins off unless the user chose otherwise
(`PYDANTIC_DISABLE_PLUGINS`, `cli/main.py`). With every plugin off, pydantic's loader
(`pydantic.plugin._loader.get_plugins`) returns none and reads no package's entry points, but
loading it imports `importlib.metadata` (`email`, `zipfile`, `csv`: about 13 ms, before a
release's surfaces can start) the first time a model builds its validator. `skip_loader` puts
in its place a loader that gives the same answer, no plugin, and imports nothing. Where a
plugin may load (the variable names some plugins, or is set to anything but "all off"), pydantic
keeps its own loader; and a pydantic that asks the loader for anything but `get_plugins` gets
pydantic's own module, loaded then, so a change in pydantic costs speed, not a crash.
"""

from __future__ import annotations

import importlib
import os
import sys
import types

ALL_OFF = ("__all__", "1", "true")
"""The values of `PYDANTIC_DISABLE_PLUGINS` with which pydantic loads no plugin at all."""

LOADER = "pydantic.plugin._loader"


def skip_loader() -> None:
    """With every pydantic plugin off, a plugin loader that loads none and imports nothing."""
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in ALL_OFF or LOADER in sys.modules:
        return
    loader = types.ModuleType(LOADER, "pydantic's plugin loader with every plugin off")
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    loader.__getattr__ = _own_loader  # type: ignore[method-assign]
    sys.modules[LOADER] = loader


def _own_loader(name: str) -> object:
    """Any other name of the loader, from pydantic's own module (which replaces this one); the
    import system's own questions (`__path__`, ...) are answered as by any module without them."""
    if name.startswith("__"):
        raise AttributeError(name)
    del sys.modules[LOADER]
    return getattr(importlib.import_module(LOADER), name)


def _no_plugins() -> tuple[()]:
    """What pydantic's `get_plugins` returns when every plugin is off."""
    return ()
