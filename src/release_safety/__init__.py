"""release-safety: is upgrading to this release safe to roll, and why."""

__version__ = "0.1.0"


def compiled() -> bool:
    """Whether the migration lint runs compiled (mypyc: a wheel built where it could be) or
    from its Python sources (an editable install, or no C compiler at install time)."""
    from importlib.util import find_spec

    spec = find_spec("release_safety.surfaces.migrations.sql.lexer")
    return spec is not None and spec.origin is not None and not spec.origin.endswith(".py")


def version_line() -> str:
    """What `release-safety --version` prints: the version and which build of the lint runs."""
    build = "compiled" if compiled() else "pure Python"
    return f"release-safety, version {__version__} (migration lint: {build})"
