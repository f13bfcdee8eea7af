"""docs/config-rules.md, rendered from the rules (a test keeps the file in sync)."""

from __future__ import annotations

import release_safety.surfaces.config.rules  # noqa: F401  (registers them)
from release_safety.contract.reports import RULES
from release_safety.settings.model import DEFAULT_CONFIG_EXCLUDES

INTRO = """# Config rules

Generated from `src/release_safety/surfaces/config/rules.py` by
`release_safety.surfaces.config.page.render()`; edit the rules, not this file
(`tests/surfaces/config/test_config_docs.py` keeps it in sync).

The surface extracts the settings a service reads (environment variables, and the keys of its
config files), with their defaults, from the sources `[config] sources` names, at both refs,
and diffs them into the artifact's `config.changes[]` and findings. Breaking findings make
`config.breaking` true. No source at either ref: the surface is not checked (declare
`[config] absent = "why"` for a service that reads no environment).

`config.changes[]` holds closed objects in the source service's v2 shape (defaults are strings
or null):

```json
{"type": "removed", "name": "CACHE_TTL", "previousDefault": "60"}
{"type": "renamed", "name": "DATABASE_HOST", "previousName": "DB_HOST", "defaultValue": "db"}
{"type": "defaultChanged", "name": "POOL_SIZE", "previousDefault": "10", "defaultValue": "50"}
```

## Sources

Each `config.sources` entry is a path or glob (`*` within a folder, `**` across folders), or a
table:

```toml
[config]
sources = [
  "src/**/*.go",                                            # code: every read it makes
  { path = "server/src/**/*.rs", exclude = ["server/src/bench/**"] },
  { path = "server/config.default.toml", env_prefix = "APP_" },  # keys read as APP_<KEY>
  { path = "deploy/defaults.env", defaults = true },         # values are the defaults
  { path = "src/env/defaults.ts", defaults_table = "DEFAULTS" },  # { ...DEFAULTS, ...process.env }
]
renames = { DATABASE_HOST = "DB_HOST" }                      # declared renames, new = old
```

- By default (`**/.env.example`, `**/.env.sample`, `**/.env.template`, `**/.env.dist`,
  `**/example.env`) only env example files are read: point the settings at the code.
- A glob never looks into vendored, test, example or hidden folders it does not name
  (`vendor/`, `node_modules/`, `third_party/`, `tests/`, `testdata/`, ...), and leaves out
  test files: EXCLUDES. `exclude` globs leave out more. A path or glob set explicitly that
  matches nothing at the ref being judged is bad settings (exit 2 in `generate`, `check-pr`).
- `env_prefix` (and `env_separator`, default `__`, between nested keys) on a TOML, YAML or
  JSON file names its keys as environment variables; without it, the prefix comes from the Rust
  code that loads the file (figment's `Env::prefixed("APP_").split("__")`, config-rs's
  `Environment::with_prefix("APP").separator("__")`, the file named by `include_str!` or a
  `::file(..)` / `File::with_name(..)` loader), else the keys are config keys (`database.port`).
- A JSON Schema that defines the configuration (`kind = "jsonschema"`, or recognised by its
  content) is diffed as a contract besides its variables: a key that accepts fewer values (an
  enum value removed, a bound tightened, a pattern or a format added, a type narrowed) is
  `config-constraint-narrowed`; widenings (a format or pattern dropped, an enum value added,
  `additionalProperties` opened) and description, title or example edits are not findings; a
  change no rule judges is `delta-not-judged` (unknown). Findings point at the key's line.
- `defaults_table`, on an entry that names one file (not a glob), names the object literal
  (`const DEFAULTS = { PORT: 8055, ... }`) of a TypeScript / JavaScript source that the service
  merges the environment over: each key is a
  variable, its value the default. A spread or a computed key in it, or no single object of
  that name, makes the surface not checked (file and line). With a table named, a copy of the
  whole environment (`{ ...process.env }`) reads names written there, and is not refused.
- Values are defaults in config files, and only names in env files and in templates or examples
  (a name with `.tmpl`, `.template`, `.example`, `.sample`, `.dist`, `.in`, or containing
  `example` / `sample`): `defaults = true` / `false` says otherwise. A variable the code
  requires that no example file lists is an advisory.

SOURCES

A non-literal default is kept as its source text (`DEFAULT_PORT`; `DEFAULTS['PORT']` is written
`DEFAULTS.PORT`), so changing it is still seen. Computed names (`process.env[key]`,
`os.getenv(name)` with a local variable) name no variable and are skipped; a TypeScript / JavaScript
source that copies the whole environment outside an env schema (`{ ...process.env }`,
`Object.entries(process.env)`, `for (const key in process.env)`, `Deno.env.toObject()`,
`Deno.env.get(name)` with a computed name) reads names it does not write, from a table of defaults
or a pattern elsewhere, and makes the surface not checked, naming the file and line; so does a Go
`os.Environ()` (`syscall.Environ()`) the program reads, by a prefix scan or a pattern (one handed to
a child process as `cmd.Env`, or `append(os.Environ(), ...)` there, is not a read; one whose key is
only matched with a literal set is read as that set), naming the prefix when it tests one. `Bun.env`
and `import.meta.env` are read as `process.env` is, `Deno.env.get('X')` as `process.env.X`. When a
variable is read in several places, its defaults are joined (`3000 | 8080`); it is required when it
has no default anywhere and some read requires it. A source with a syntax error makes the whole
surface not checked, naming the file and line; a Go or Rust file that mentions nothing the readers
look for (no getter, no wrapper, no struct tag, no loader) is not parsed: a Rust file is parsed
when it reads, loads or names configuration itself (`env`, a loader, `include_str!`, a config
crate), or names what such files depend on (a reader function, a constant passed as a variable's
name, a struct envy loads), and again until no file is added. Nor is a TypeScript / JavaScript file
no environment read can be reached from: one whose text holds no `env` and names no config library,
that calls no reader function, and that no reading file imports a function or a constant from (a
syntax error there changes nothing); the coverage counts them (`712 files skipped: no environment
read reachable`). Every file is parsed once per blob id (a file unchanged between refs, or between
releases of a backfill, is parsed once per process).

Files the service runs are configuration too, read beside the sources whenever the sources match
a file: a `next.config.js` (`.mjs`, `.cjs`, `.ts`) and a `gunicorn_conf.py` / `gunicorn.conf.py`
at the root or in a folder above a matched source, and the shell script a Dockerfile's
`ENTRYPOINT` or `CMD` runs (`${WEB_GUNICORN:-4}` reads `WEB_GUNICORN` with the default 4,
`${X:?}` requires X, a variable the script assigns first is its own). The keys of a Next.js
config's `env` object (`env: { KEY: value }` and shorthand `env: { basePath }`) are inlined at
build time and are no operator variable. A default written as a module `const` holding a literal
(`process.env.TTL || DEFAULT_TTL`) is that literal. A read kept in a `const` of its own module,
with no default or an empty one (`const corsMaxAge = process.env.CORS_MAX_AGE;`), takes the
default every use of the const gives (`corsMaxAge || '86400'`; after `|| ''`, only an `||`
replaces the empty value), when every use gives the same one; an exported const, or a use that
gives none (`if (corsMaxAge)`, `{ corsMaxAge }`), leaves it as read. Defaults joined from
several reads show an empty one as `''` (`'' | 86400`). A pydantic-settings field with no
default that the class's `__init__` or a `model_validator` names is filled there, so it is not
required (its default reads `(filled by Settings.__init__)`). Remaining gaps: scripts an
entrypoint calls are not followed; files the image runs elsewhere than the root, a folder above
a source or a Dockerfile's `ENTRYPOINT`/`CMD` (a `Procfile`, a supervisor config) are read only
when named in `config.sources`; a Next.js `env` key is left out wherever it is read; whether the
constructor really fills a field it names is not proved.

## Diff and the rename heuristic

Settings are compared by name. A removed and an added name are paired as a rename, in order,
and only one to one (when one name could pair with two, it is no pair):

1. **with fallback**: the new variable's read falls back to an old name that is still read
   (`process.env.NEW ?? process.env.OLD`, `os.getenv('NEW', os.getenv('OLD'))`,
   `cmp.Or(os.Getenv("NEW"), os.Getenv("OLD"))`, `env::var("NEW").or_else(|_|
   env::var("OLD"))`, an `envconfig:"OLD"` tag under a prefix, `AliasChoices("NEW", "OLD")`,
   `BindEnv("key", "NEW", "OLD")`): existing deployments keep working, so it is an advisory
   (still listed in `changes[]`);
2. **declared**: `[config] renames = { NEW = "OLD" }`, or a config file whose value (or table)
   moved as it was from one key to another (found with deepdiff);
3. **same reading site**: both are read into the same place: the same variable, struct field
   or object key in the same file, the same constant (`const tcrQPSLimit = "..."`), the same
   field of a settings struct (`Config.SMTP.MaxFrequency`), the same key of a config file;
4. **same default**: both have the same non-empty default and their names share a word
   (`TIMEOUT_MS` and `REQUEST_TIMEOUT_MS`, `WORKERS` and `WORKER_COUNT`; not
   `CACHE_PERMISSIONS` and `WEBSOCKETS_LOGS_ENABLED`, both `true`).

What stays unpaired is a removal (breaking) or an addition: required with no default is
breaking (no existing deployment sets it, the release does not start), otherwise an advisory.
A default that changes is breaking, except a default added to a variable that was required
(every deployment already sets it: advisory) and an empty default where there was none (an
unset variable reads as empty already: `process.env.X || ''`, Go's `os.Getenv`), which is no
change; the other way, an empty default removed, is breaking. An optional variable that
becomes required is breaking. The first ref where sources exist (or a first release) is a
baseline: nothing is reported. Sources matched at the old ref but none at the new: not checked.

`file`/`line` point at the read in the new ref (the old ref for a removal).

## Rules

"""


SOURCE_KINDS: list[tuple[str, ...]] = [
    (
        "Go",
        "`.go`",
        "tree-sitter-go, resolved across the files of a ref",
        (
            "`os.Getenv` / `os.LookupEnv` of a literal or a constant (same package, any file, or "
            "an imported package of the repository); wrappers (a function passing a parameter to "
            'a getter or another wrapper: `getEnv("X", "d")`, `utils.ReadEnv(key)`); a getter fed'
            " a struct field (`os.LookupEnv(item.EnvKey)`) reads each keyed literal's name "
            '(`{EnvKey: "X", DefaultValue: "d"}`); `cmp.Or(...)`; kelseyhightower/envconfig '
            '`Process("app", &spec)` (field names upper-cased, nested structs prefixed, embedded '
            'flattened, `split_words`, `envconfig`, `ignored`); caarlos0/env (`env:"X"`, '
            "`envPrefix`, `Options{Prefix}`); spf13/viper (`SetEnvPrefix`, `SetEnvKeyReplacer`, "
            "`AutomaticEnv` with the keys `Get*` / `SetDefault` name, `BindEnv`); alecthomas/kong "
            '(`env:"X,Y"`, `envprefix`); urfave/cli flags (`EnvVars`, `Sources: cli.EnvVars(...)`,'
            " `EnvVar`); a type that decodes itself (`Decode`, `Set`, `UnmarshalText`) is one "
            "variable; an `os.Environ()` scan (followed through the functions of its package) "
            'whose key, split at `=`, is only matched with a literal set: `switch key { case "X": '
            '}`, `key == "X"`, or `field, ok := table[key]` in a map literal of the package with '
            "literal keys, reads exactly that set (a key only warned about is not read). Gaps: "
            "a computed name, tags no `Process` / `Parse` call reaches (prefix "
            "unknown), a koanf / ory/x configx / viper config file or JSON Schema not among the "
            "sources (blocking, naming the entry to add), a config library not modelled "
            "(blocking). Test helpers (a `*testing.T` parameter, dockertest) are left out"
        ),
        (
            '`if v == "" { v = "d" }`, `if !ok { return d }`, a wrapper\'s default argument, the '
            'last `cmp.Or` literal, `default:"d"`, `envDefault:"d"`, `SetDefault`, `Default*` '
            "key, a flag's `Value`; in a scan, a case's parse helper's fallback "
            "(`parseString(value, defaultLogFile)`), a map entry's `Default*`, `parsed*` or "
            "`raw*` field"
        ),
        (
            '`required:"true"`, `env:"X,required"` / `notEmpty`, kong `required:""`, a flag\'s '
            "`Required: true`, a wrapper that panics or calls `log.Fatal`"
        ),
    ),
    (
        "Rust",
        "`.rs`",
        "tree-sitter-rust",
        (
            '`std::env::var("X")` / `var_os` (a literal or a `const`), `.or_else(|_| '
            'env::var("OLD"))` as a fallback; clap `#[arg(env = "X")]`, `#[clap(env)]` (the field'
            " name in upper case)"
        ),
        (
            '`.unwrap_or("d")`, `.unwrap_or_else(|_| "d".into())` (a closure\'s result), '
            "`.unwrap_or_default()`, `default_value`, `default_value_t`"
        ),
        (
            "`.unwrap()`, `.expect(..)`, `?`; a clap field that is not `Option`, `bool` or `Vec` "
            "and has no default"
        ),
    ),
    (
        "Python",
        "`.py`",
        "`ast` (never imported)",
        (
            "`os.environ['X']`, `os.environ.get('X', d)`, `os.getenv('X', d)`, "
            "`os.environ.setdefault('X', d)` (with `import os as o`, `from os import environ, "
            "getenv`); pydantic-settings `BaseSettings` fields: `env_prefix` + field name, "
            "`alias` / `validation_alias` (`AliasChoices`: the others are fallbacks), "
            "`env_nested_delimiter` into `BaseModel` fields"
        ),
        (
            "the second argument, the last operand of an `or` chain, the field's default "
            "(`Field(d)`, `default_factory`)"
        ),
        "`os.environ['X']`; a field without a default",
    ),
    (
        "TypeScript / JavaScript",
        "`.ts .mts .cts .tsx .js .mjs .cjs .jsx`",
        "tree-sitter",
        "`process.env.X`, `process.env['X']`, `const { X, Y = 'd' } = process.env` (`Bun.env`"
        " and `import.meta.env` alike), `Deno.env.get('X')`; env"
        " schemas: envalid's `cleanEnv(process.env, { X: str({ default: 'd' }) })`, zod's"
        " `z.object({ X: z.string().default('d') }).parse(process.env)` (`safeParse`,"
        " `.extend`, `.merge` too), t3-env's `createEnv({ server: {...}, runtimeEnv })` (a"
        " schema written as an object literal, `const`s or helper functions of the same file,"
        " spreads and `z.preprocess` included; one it cannot see, such as an imported object,"
        " makes the source unreadable: not checked); reader functions of the repository,"
        " across files (a function whose parameter reaches `process.env[key]`, through any"
        " depth of wrappers, imports, arrow functions and methods: `getConfigFromEnv('X')`,"
        " `env.get('X')`, a `const` name included); env-var `env.get('X')`; convict schemas"
        " (`env`, `default`); @nestjs/config `ConfigService.get('X', d)` / `getOrThrow` and a"
        " Joi `validationSchema`. A computed name (`process.env[prefix + k]`, a reader called"
        " with a variable) is not modelled: unknown when the release changes its file;"
        " node-config, nconf, rc and dotenv-extended are not modelled: unknown while imported",
        "last operand of a `||` / `??` chain, the destructuring default, envalid's `default`,"
        " zod's outermost `.default(d)` / `.catch(d)`; a reader's: the operand beside its call,"
        " its own `?? d` or `value === undefined ? d : value` (a parameter: the argument, or the"
        " parameter's default); the argument a function of the repository falls back to when"
        " given `process.env.X` (`envPositiveInteger(process.env.X, 30_000)`); env-var"
        " `.default(d)`, convict `default`, Joi `.default(d)`,"
        " `ConfigService.get`'s second argument",
        "`process.env.X!`, `if (!process.env.X) throw ...`, a guard within three statements;"
        " an envalid validator without `default` (`devDefault` does not count: production"
        " refuses to start without the variable); a zod field without a default that is not"
        " `.optional()` / `.nullish()`; a reader that throws or exits when the value is unset;"
        " env-var `.required()`, Joi `.required()`, `ConfigService.getOrThrow`",
    ),
    (
        "env file",
        "`.env`, `.env.*`, `env.*`, `*.env`",
        "python-dotenv's parser (`export`, quotes, multi-line quoted values, bare keys)",
        "every key",
        "with `defaults = true` only: the value",
        "with `defaults = true` only: an empty value or a bare key",
    ),
    (
        "config file",
        "`.toml .yaml .yml .json` (a template suffix looked through: `harbor.yml.tmpl`)",
        "tomllib, PyYAML, json",
        "every leaf key (a list is a value)",
        "the value, unless the file is a template or an example",
        "–",
    ),
    (
        'JSON Schema (`kind = "jsonschema"`)',
        "a `.json` / `.yaml` file with top-level `properties` beside `$schema` or "
        "`type: object` (koanf, ory/x configx)",
        "the project's JSON-Schema engine (`$ref` / `$defs` resolved; a `$ref` to another "
        "file of the repository, `defs.json#/$defs/port`, is taken in, and a change of that "
        "file is a change of the schema; one to another source's `$id`, `ory://tracing-config` "
        "vendored and named in `config.sources`, is taken in the same way, and that source is "
        "read as part of the schema; one to any other remote document is a gap)",
        "every key as `env_prefix` + the key path upper-cased, joined by `env_separator` "
        "(`_` unless set): `serve.public.port` -> `PREFIX_SERVE_PUBLIC_PORT`; arrays and "
        "`additionalProperties` maps are one variable; `patternProperties`, `if`/`then` and "
        "`oneOf` between object shapes are not modelled (a gap, raised only by a release "
        "that changes the `if`/`then`/`else` it is about)",
        "`default`",
        "required (at every level) with no `default`",
    ),
]
"""The table of source kinds: kind, files, parser, reads, default, required."""


def render() -> str:
    """The whole page."""
    excludes = ", ".join(f"`{p}`" for p in DEFAULT_CONFIG_EXCLUDES)
    header = ("kind", "files", "parser", "reads", "default", "required")
    kinds = [_row(header), _row(("---",) * 6), *map(_row, SOURCE_KINDS)]
    intro = INTRO.replace("EXCLUDES", excludes).replace("SOURCES", "\n".join(kinds))
    lines = [intro, _row(("id", "severity", "title", "unsafe", "safe")), _row(("---",) * 5)]
    for rule in (rule for rule in RULES.values() if rule.surface == "config"):
        lines.append(
            _row((f"`{rule.id}`", rule.severity, rule.title, rule.unsafe or "—", rule.safe))
        )
    return "\n".join(lines) + "\n"


def _row(cells: tuple[str, ...]) -> str:
    """A Markdown table row (a `|` inside a cell escaped)."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
