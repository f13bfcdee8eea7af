"""The Python config libraries a module uses, read from its syntax tree (never imported):

- environs: `env = Env()`, `env("X")`, `env.int("X", 5)`, `env.str("X", default="d")`; without
  a default the variable is required; `with env.prefixed("APP_"):` prefixes the reads inside;
- django-environ: `env = environ.Env(DEBUG=(bool, False))` declares casts and defaults,
  `env("X")` (its default is the keyword or the third argument), `env.int("X", default=5)`,
  `env.db()` / `env.cache()` / `env.email()` / `env.search_url()` read `DATABASE_URL`,
  `CACHE_URL`, `EMAIL_URL`, `SEARCH_URL` unless named; required without a default;
- dynaconf: `Dynaconf(envvar_prefix="APP", settings_files=[...])` (prefix `DYNACONF` when not
  given, none when `False`): `Validator("X", "Y", must_exist=True, default=...)` names
  `APP_X` (nested keys `a.b` are `APP_A__B`), required when it must exist without default;
  the settings files it names are read by `python_resolve` (keys as `APP_KEY`, values as
  defaults; under `[default]` with `environments=True`).

A config library imported and used that is not modelled (python-decouple, environ-config,
everett, hydra, omegaconf, ConfigArgParse, confuse, goodconf, envparse) is a blocking `Gap` at
its first use: the variables it loads are out of sight.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from release_safety.code.pysource import segment
from release_safety.surfaces.config.python_calls import callee, value
from release_safety.surfaces.config.reads import EnvRead, Gap, Reading

_ENVIRONS = frozenset(
    {
        *("str", "int", "bool", "float", "decimal", "list", "dict", "json", "datetime", "date"),
        *("time", "timedelta", "path", "log_level", "url", "uuid", "enum", "dj_db_url"),
        *("dj_cache_url", "dj_email_url"),
    }
)
_DJANGO = frozenset(
    {
        *("str", "bool", "int", "float", "json", "list", "tuple", "dict", "url", "db_url", "db"),
        *("cache_url", "cache", "email_url", "email", "search_url", "path", "bytes"),
    }
)
_DJANGO_URLS = {
    "db": "DATABASE_URL",
    "db_url": "DATABASE_URL",
    "cache": "CACHE_URL",
    "cache_url": "CACHE_URL",
    "email": "EMAIL_URL",
    "email_url": "EMAIL_URL",
    "search_url": "SEARCH_URL",
}
_UNMODELLED = {
    "decouple": "python-decouple",
    "everett": "everett",
    "hydra": "hydra",
    "omegaconf": "omegaconf",
    "configargparse": "ConfigArgParse",
    "confuse": "confuse",
    "goodconf": "goodconf",
    "envparse": "envparse",
}
_ENVIRON_CONFIG = {"config", "var", "group", "to_config", "secrets"}
"""environ-config's attributes (it is imported as `environ`, like django-environ)."""


@dataclass
class SettingsFiles:
    """Files a dynaconf loader names, with the prefix their keys take in the environment."""

    line: int
    prefix: str | None
    files: tuple[str, ...]
    environments: bool


@dataclass
class Libraries:
    reads: Reading = field(default_factory=list)
    files: list[SettingsFiles] = field(default_factory=list)


def read(tree: ast.Module, text: str, path: str = "") -> Libraries:
    """The reads of the config libraries `tree` uses."""
    imports = _imports(tree)
    found = Libraries()
    envs: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            library = _constructed(node.value.func, imports)
            for target in node.targets:
                if library and isinstance(target, ast.Name):
                    envs[target.id] = library
    schema = _schema(tree, envs, imports, text)
    _Env(found.reads, envs, schema, text, path).visit(tree)
    found.reads += _dynaconf(tree, imports, text, found.files)
    found.reads += _unmodelled(tree, imports, path)
    return found


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> `module` or `module.name` it stands for."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.partition(".")[0]] = (
                    alias.name if alias.asname else alias.name.partition(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _qualified(node: ast.expr, imports: dict[str, str]) -> str:
    name = callee(node)
    if name is None or name[0] not in imports:
        return ""
    return ".".join([imports[name[0]], *name[1:]])


def _constructed(func: ast.expr, imports: dict[str, str]) -> str:
    """The library an env object comes from (`Env()`), or ""."""
    return {"environs.Env": "environs", "environ.Env": "django-environ"}.get(
        _qualified(func, imports), ""
    )


def _schema(
    tree: ast.Module, envs: dict[str, str], imports: dict[str, str], text: str
) -> dict[str, str | None]:
    """django-environ's declared variables: name -> default (None: declared without one)."""
    declared: dict[str, str | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _constructed(node.func, imports) == "django-environ":
            for keyword in node.keywords:
                if keyword.arg is None:
                    continue
                spec = keyword.value
                given = spec.elts[1] if isinstance(spec, ast.Tuple) and len(spec.elts) > 1 else None
                declared[keyword.arg] = value(given, text).literal if given is not None else None
    return declared


class _Env(ast.NodeVisitor):
    """environs and django-environ reads, with environs' `prefixed` blocks."""

    def __init__(
        self,
        found: Reading,
        envs: dict[str, str],
        schema: dict[str, str | None],
        text: str,
        path: str,
    ) -> None:
        self.found = found
        self.envs = envs
        self.schema = schema
        self.text = text
        self.path = path
        self.prefix: list[str] = []

    def visit_With(self, node: ast.With) -> None:
        added = 0
        for item in node.items:
            call = item.context_expr
            name = callee(call.func) if isinstance(call, ast.Call) else None
            if (
                isinstance(call, ast.Call)
                and name is not None
                and name[0] in self.envs
                and name[1:] == ("prefixed",)
                and call.args
            ):
                self.prefix.append(value(call.args[0], self.text).literal or "")
                added += 1
        self.generic_visit(node)
        del self.prefix[len(self.prefix) - added :]

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        name = callee(node.func)
        if name is None or name[0] not in self.envs:
            return
        library = self.envs[name[0]]
        method = name[1] if len(name) > 1 else ""
        methods = _ENVIRONS if library == "environs" else _DJANGO
        if method and method not in methods:
            return
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        given = node.args[0] if node.args else keywords.get("var") or keywords.get("name")
        if given is None:
            variable = _DJANGO_URLS.get(method) if library == "django-environ" else None
            if variable is None:
                return
        else:
            variable = value(given, self.text).literal if _string(given) else None
        if variable is None:
            shown = segment(self.text, node) or method
            self.found.append(
                Gap(
                    node.lineno,
                    f"`{shown}`: a {library} read with a name that cannot be followed",
                    f"Name the variable at {self.path}:{node.lineno} with a string literal, "
                    f"or leave {self.path} out of `config.sources` (an `exclude`) if it reads "
                    "no setting of the service.",
                )
            )
            return
        position = 2 if library == "django-environ" and not method else 1
        default_node = keywords.get("default")
        if default_node is None and len(node.args) > position:
            default_node = node.args[position]
        full = "".join(self.prefix) + variable
        default = value(default_node, self.text).literal if default_node is not None else None
        if default_node is not None and default is None:
            default = value(default_node, self.text).text
        declared = variable in self.schema
        if default is None and declared:
            default = self.schema[variable]
        required = default_node is None and not (declared and self.schema[variable] is not None)
        self.found.append(EnvRead(full, node.lineno, default, required, f"{name[0]}.{method}"))


def _string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _dynaconf(
    tree: ast.Module, imports: dict[str, str], text: str, files: list[SettingsFiles]
) -> Reading:
    loaders = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and _qualified(n.func, imports) in ("dynaconf.Dynaconf", "dynaconf.LazySettings")
    ]
    if not loaders:
        return []
    prefix: str | None = "DYNACONF_"
    for loader in loaders:
        options = {k.arg: k.value for k in loader.keywords if k.arg}
        given = options.get("envvar_prefix") or options.get("ENVVAR_PREFIX_FOR_DYNACONF")
        if isinstance(given, ast.Constant):
            prefix = f"{given.value.rstrip('_')}_" if isinstance(given.value, str) else None
        written = options.get("settings_files") or options.get("settings_file")
        names: list[ast.expr] = [written] if isinstance(written, ast.Constant) else []
        if isinstance(written, ast.List | ast.Tuple):
            names = list(written.elts)
        environments = options.get("environments")
        files.append(
            SettingsFiles(
                loader.lineno,
                prefix,
                tuple(
                    n.value
                    for n in names
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                ),
                isinstance(environments, ast.Constant) and environments.value is True,
            )
        )
    found: Reading = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and _qualified(node.func, imports) == "dynaconf.Validator"
        ):
            continue
        options = {k.arg: k.value for k in node.keywords if k.arg}
        default_node = options.get("default")
        default = value(default_node, text).literal if default_node is not None else None
        must = options.get("must_exist") or options.get("required")
        required = isinstance(must, ast.Constant) and must.value is True and default is None
        for name in node.args:
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                variable = (prefix or "") + "__".join(name.value.split(".")).upper()
                found.append(EnvRead(variable, node.lineno, default, required, name.value))
    return found


def _unmodelled(tree: ast.Module, imports: dict[str, str], path: str) -> Reading:
    used: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute) and not isinstance(
            getattr(node, "ctx", None), ast.Store
        ):
            name = callee(node)
            qualified = imports.get(name[0], "") if name else ""
            root = qualified.partition(".")[0]
            library = _UNMODELLED.get(root)
            if root == "environ" and name is not None:
                parts = [*qualified.split(".")[1:], *name[1:]]
                library = "environ-config" if parts and parts[0] in _ENVIRON_CONFIG else None
            if library and (library not in used or node.lineno < used[library]):
                used[library] = node.lineno
    return [
        Gap(
            line,
            f"the {library} library loads configuration here and is not modelled",
            f"The variables {library} reads at {path}:{line} are out of sight: exclude {path} "
            "from `config.sources` and list the variables with their defaults in an env "
            "example file among them, or read them with os.environ or a modelled library "
            "(pydantic-settings, environs, django-environ, dynaconf).",
            blocking=True,
        )
        for library, line in sorted(used.items(), key=lambda item: item[1])
    ]
