"""Go config libraries, one-change releases each: urfave/cli flags, kong tags, types that
decode themselves, and the loaders the resolver does not read itself (koanf, ory/x configx,
viper's config files, libraries not modelled), which name the settings entry or the library."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Files = dict[str, str | None]
Judge = Callable[..., ConfigReport]
SOURCES = ("**/*.go",)


def rules(report: ConfigReport) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in report.findings]


# urfave/cli ---------------------------------------------------------------------------------


def cli(*flags: str, version: str = "/v2") -> Files:
    body = "".join(f"\t\t\t&cli.StringFlag{{{f}}},\n" for f in flags)
    return {
        "cmd/app/main.go": (
            f'package main\n\nimport "github.com/urfave/cli{version}"\n\nfunc main() {{\n'
            f"\tapp := &cli.App{{\n\t\tFlags: []cli.Flag{{\n{body}\t\t}},\n\t}}\n\t_ = app\n}}\n"
        )
    }


PORT = 'Name: "port", Value: "8080", EnvVars: []string{"PORT", "APP_PORT"}'
DSN = 'Name: "dsn", EnvVars: []string{"DATABASE_URL"}'


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (cli(PORT), [("config-var-removed", "env var `DATABASE_URL` removed")]),
        (
            cli(PORT.replace("8080", "9090"), DSN),
            [
                ("config-default-changed", "env var `APP_PORT` default changed `8080` → `9090`"),
                ("config-default-changed", "env var `PORT` default changed `8080` → `9090`"),
            ],
        ),
        (
            cli(PORT, DSN + ", Required: true"),
            [("config-var-became-required", "env var `DATABASE_URL` became required")],
        ),
        (cli(PORT + " /* the listen port */", DSN), []),
    ],
    ids=["removed", "default-changed", "made-required", "comment-only"],
)
def test_urfave_cli_flags_are_env_vars(
    judge: Judge, new: Files, expected: list[tuple[str, str]]
) -> None:
    report = judge(cli(PORT, DSN), new, SOURCES)
    assert report.checked is True, report.reason
    assert [(rule, message.split(" (")[0]) for rule, message in rules(report)] == expected


def test_urfave_cli_v3_sources_name_the_variables(judge: Judge) -> None:
    flag = 'Name: "port", Value: "8080", Sources: cli.EnvVars("PORT")'
    report = judge(
        cli(flag, version="/v3"), cli(flag.replace("8080", "80"), version="/v3"), SOURCES
    )
    assert rules(report) == [
        ("config-default-changed", "env var `PORT` default changed `8080` → `80`")
    ]
    assert report.coverage.understood == {"PORT": "cmd/app/main.go:8"}


# kong ----------------------------------------------------------------------------------------


def kong(*fields: str) -> Files:
    lines = "".join(f"\t{f}\n" for f in fields)
    return {
        "cmd/app/main.go": (
            'package main\n\nimport "github.com/alecthomas/kong"\n\n'
            f"type Serve struct {{\n{lines}}}\n\nvar CLI struct {{\n"
            '\tServe Serve `cmd:"" envprefix:"APP_"`\n}\n\n'
            "func main() {\n\tkong.Parse(&CLI)\n}\n"
        )
    }


LISTEN = 'Listen string `env:"LISTEN,ADDR" default:":8080"`'
TOKEN = 'Token string `env:"TOKEN"`'


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (kong(LISTEN), [("config-var-removed", "env var `APP_TOKEN` removed")]),
        (
            kong(LISTEN.replace(":8080", ":9090"), TOKEN),
            [
                ("config-default-changed", "env var `APP_ADDR` default changed `:8080` → `:9090`"),
                (
                    "config-default-changed",
                    "env var `APP_LISTEN` default changed `:8080` → `:9090`",
                ),
            ],
        ),
        (
            kong(LISTEN, TOKEN.replace('"`', '" required:""`')),
            [("config-var-became-required", "env var `APP_TOKEN` became required")],
        ),
        (kong(LISTEN, TOKEN + " // the API token"), []),
    ],
    ids=["removed", "default-changed", "made-required", "comment-only"],
)
def test_kong_env_tags_are_env_vars(
    judge: Judge, new: Files, expected: list[tuple[str, str]]
) -> None:
    report = judge(kong(LISTEN, TOKEN), new, SOURCES)
    assert report.checked is True, report.reason
    assert [(rule, message.split(" (")[0]) for rule, message in rules(report)] == expected
    assert {"APP_LISTEN", "APP_ADDR"} <= set(report.coverage.understood)


# types that decode themselves ------------------------------------------------------------------


def decoded(field: str, decoder: str = "Decode") -> Files:
    return {
        "cmd/app/main.go": (
            'package main\n\nimport (\n\t"time"\n\n\t"github.com/kelseyhightower/envconfig"\n)\n\n'
            "type Duration struct {\n\tInner time.Duration\n\tUnit  string\n}\n\n"
            f"func (d *Duration) {decoder}(value string) error {{\n"
            "\treturn nil\n}\n\n"
            f'type Config struct {{\n\tPort int `default:"8080"`\n{field}}}\n\n'
            'func main() {\n\tvar cfg Config\n\t_ = envconfig.Process("app", &cfg)\n}\n'
        )
    }


TIMEOUT = '\tTimeout Duration `default:"30"`\n'


@pytest.mark.parametrize("decoder", ["Decode", "Set", "UnmarshalText"])
def test_a_type_with_its_own_decoder_is_one_variable(judge: Judge, decoder: str) -> None:
    report = judge(
        decoded(TIMEOUT, decoder), decoded(TIMEOUT.replace("30", "60"), decoder), SOURCES
    )
    assert rules(report) == [
        ("config-default-changed", "env var `APP_TIMEOUT` default changed `30` → `60`")
    ]
    assert set(report.coverage.understood) == {"APP_PORT", "APP_TIMEOUT"}


def test_removing_a_self_decoding_field_removes_one_variable(judge: Judge) -> None:
    report = judge(decoded(TIMEOUT), decoded(""), SOURCES)
    assert [(r, m.split(" (")[0]) for r, m in rules(report)] == [
        ("config-var-removed", "env var `APP_TIMEOUT` removed")
    ]


# a loader that moved ----------------------------------------------------------------------------

SETTINGS = [f"Setting{i}" for i in range(12)]
CONFIG = (
    "package config\n\ntype Config struct {\n\tSecrets Secrets\n"
    + "".join(f'\t{name} string `envconfig:"{name.upper()}" default:"x"`\n' for name in SETTINGS)
    + '}\n\ntype Secrets struct {\n\tKey string `envconfig:"X"`\n}\n'
)
LOAD = (
    'package {package}\n\nimport (\n\t"github.com/kelseyhightower/envconfig"\n\n'
    '\t"example.com/app/internal/config"\n)\n\n'
    "func {function}() {{\n\tvar cfg config.Config\n"
    '\t_ = envconfig.Process("app", &cfg)\n}}\n'
)


def test_a_loader_moved_out_of_the_sources_is_one_unknown_finding(judge: Judge) -> None:
    old = {
        "internal/config/config.go": CONFIG,
        "cmd/app/main.go": LOAD.format(package="main", function="main"),
    }
    new = {
        "internal/config/config.go": CONFIG,
        "cmd/app/main.go": (
            'package main\n\nimport "example.com/app/pkg/boot"\n\nfunc main() {\n\tboot.Load()\n}\n'
        ),
        "pkg/boot/boot.go": LOAD.format(package="boot", function="Load"),
    }
    report = judge(old, new, ["internal/**/*.go", "cmd/**/*.go"])
    assert report.checked is False
    [lost] = report.findings
    assert lost.rule == "config-loader-lost"
    assert "26 of the 26 variables" in lost.message  # each `envconfig` name also read bare
    assert "through envconfig.Process at cmd/app/main.go:11" in lost.message
    assert report.coverage.understood == {}
    [gap] = report.coverage.unmodelled
    assert (gap.file, gap.line, gap.blocking) == ("internal/config/config.go", 5, False)
    assert "struct Config" in gap.what and "`Config`" in gap.way_out


def test_tags_no_loader_reaches_are_a_gap_not_variables(judge: Judge) -> None:
    files = {"internal/config/config.go": CONFIG}
    changed = {"internal/config/config.go": CONFIG.replace('default:"x"', 'default:"y"', 1)}
    report = judge(files, changed, ["internal/**/*.go"])
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.file, finding.line) == (
        "config-read-not-understood",
        "internal/config/config.go",
        5,
    )
    assert "prefix is unknown" in finding.message


# computed names ---------------------------------------------------------------------------------

COMPUTED = (
    'package main\n\nimport "os"\n\nfunc main() {{\n\tprefix := "APP"\n'
    '\t_ = os.Getenv("PORT")\n\t_ = os.Getenv(prefix + "_HOST"){comment}\n}}\n'
)


def test_a_computed_name_in_a_changed_file_is_unknown(judge: Judge) -> None:
    report = judge(
        {"cmd/app/main.go": COMPUTED.format(comment="")},
        {"cmd/app/main.go": COMPUTED.format(comment=" // the host")},
        SOURCES,
    )
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.line) == ("config-read-not-understood", 8)
    assert 'os.Getenv(prefix + "_HOST"): a computed variable name' in finding.message
    assert finding.hint is not None and '`prefix + "_HOST"` is only known' in finding.hint


def test_a_computed_name_in_an_unchanged_file_is_recorded(judge: Judge) -> None:
    files = {"cmd/app/main.go": COMPUTED.format(comment="")}
    other = {"cmd/app/version.go": 'package main\n\nimport "os"\n\nvar v = os.Getenv("V")\n'}
    report = judge({**files, **other}, {**files, **other, "README.md": "x\n"}, SOURCES)
    assert report.checked is True and report.findings == []
    assert [(u.file, u.line) for u in report.coverage.unmodelled] == [("cmd/app/main.go", 8)]


# loaders read through their files ----------------------------------------------------------------

CONFIGX = {
    "embedx/embedx.go": (
        'package embedx\n\nimport _ "embed"\n\n//go:embed config.schema.json\n'
        "var ConfigSchema []byte\n"
    ),
    "embedx/config.schema.json": '{"type": "object", "properties": {"dsn": {"type": "string"}}}\n',
    "driver/config.go": (
        'package driver\n\nimport (\n\t"context"\n\n\t"github.com/ory/x/configx"\n\n'
        '\t"example.com/app/embedx"\n)\n\nfunc New(ctx context.Context) {\n'
        "\t_, _ = configx.New(ctx, embedx.ConfigSchema)\n}\n"
    ),
    "cmd/main.go": 'package main\n\nimport "os"\n\nvar home = os.Getenv("HOME_DIR")\n',
}


def test_configx_whose_schema_is_not_a_source_names_the_entry(judge: Judge) -> None:
    changed = {**CONFIGX, "cmd/main.go": CONFIGX["cmd/main.go"] + "// comment\n"}
    report = judge(CONFIGX, changed, SOURCES)
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.file, finding.line) == (
        "config-read-not-understood",
        "driver/config.go",
        12,
    )
    assert "JSON Schema embedx/config.schema.json" in finding.message
    assert finding.hint == (
        'add `{ path = "embedx/config.schema.json", kind = "jsonschema", env_prefix = "", '
        'env_separator = "_" }` to `config.sources`'
    )


def koanf(config: str = "config.yaml") -> Files:
    return {
        "main.go": (
            'package main\n\nimport (\n\t"strings"\n\n\t"github.com/knadh/koanf/parsers/yaml"\n'
            '\t"github.com/knadh/koanf/providers/env"\n\t"github.com/knadh/koanf/providers/file"\n'
            '\t"github.com/knadh/koanf/v2"\n)\n\nvar k = koanf.New(".")\n\nfunc main() {\n'
            f'\t_ = k.Load(file.Provider("{config}"), yaml.Parser())\n'
            '\t_ = k.Load(env.Provider("APP_", ".", func(s string) string {\n'
            '\t\ttrimmed := strings.ToLower(strings.TrimPrefix(s, "APP_"))\n'
            '\t\treturn strings.Replace(trimmed, "_", ".", -1)\n'
            "\t}), nil)\n}\n"
        ),
        "config.yaml": "server:\n  port: 8080\n  host: localhost\n",
    }


def test_koanf_whose_file_is_not_a_source_names_the_entry(judge: Judge) -> None:
    report = judge(koanf(), {**koanf(), "README.md": "x\n"}, SOURCES)
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.line) == ("config-read-not-understood", 15)
    assert finding.hint == (
        'add `{ path = "config.yaml", env_prefix = "APP_", env_separator = "_" }` to '
        "`config.sources`"
    )


def test_koanf_with_its_file_as_a_source_reads_the_keys_as_env_vars(judge: Judge) -> None:
    entry = {"path": "config.yaml", "env_prefix": "APP_", "env_separator": "_"}
    new = {**koanf(), "config.yaml": "server:\n  port: 9090\n  host: localhost\n"}
    report = judge(koanf(), new, ["**/*.go", entry])
    assert report.checked is True, report.reason
    assert rules(report) == [
        ("config-default-changed", "env var `APP_SERVER_PORT` default changed `8080` → `9090`")
    ]


VIPER = (
    'package main\n\nimport "github.com/spf13/viper"\n\nfunc main() {\n'
    '\tviper.SetEnvPrefix("app")\n\tviper.SetConfigFile("config.yaml")\n'
    '\tviper.AutomaticEnv()\n\t_ = viper.ReadInConfig()\n\t_ = viper.GetString("port")\n}\n'
)


def test_viper_config_file_not_a_source_names_the_entry(judge: Judge) -> None:
    files = {"main.go": VIPER, "config.yaml": "port: 8080\n"}
    report = judge(files, {**files, "README.md": "x\n"}, SOURCES)
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.line) == ("config-read-not-understood", 7)
    assert finding.hint == (
        'add `{ path = "config.yaml", env_prefix = "APP_", env_separator = "_" }` to '
        "`config.sources`"
    )
    entry = {"path": "config.yaml", "env_prefix": "APP_", "env_separator": "_"}
    assert judge(files, {**files, "README.md": "x\n"}, ["**/*.go", entry]).checked is True


def test_an_unmodelled_config_library_is_unknown_naming_it(judge: Judge) -> None:
    main = (
        'package main\n\nimport (\n\t"os"\n\n\t"github.com/ilyakaznacheev/cleanenv"\n)\n\n'
        'type Config struct {{\n\tPort string `env:"PORT" env-default:"{port}"`\n}}\n\n'
        "func main() {{\n\tvar cfg Config\n\t_ = cleanenv.ReadEnv(&cfg)\n"
        '\t_ = os.Getenv("HOME_DIR")\n}}\n'
    )
    report = judge(
        {"main.go": main.format(port="8080")}, {"main.go": main.format(port="9090")}, SOURCES
    )
    assert report.checked is False
    by_rule = {f.rule: f for f in report.findings}
    finding = by_rule["config-read-not-understood"]
    assert "cleanenv.ReadEnv: the cleanenv config library is not modelled" in finding.message
    assert (finding.file, finding.line) == ("main.go", 15)


# test helpers -----------------------------------------------------------------------------------

MAILHOG = (
    'package x\n\nimport (\n\t"os"\n\n\t"github.com/ory/dockertest/v3"\n)\n\n'
    'func MailhogAPI(pool *dockertest.Pool) string {{\n\treturn os.Getenv("{name}")\n}}\n'
)
TESTHELPER = (
    'package testhelpers\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
    'func DSN(t *testing.T) string {{\n\treturn os.Getenv("{name}")\n}}\n'
)


@pytest.mark.parametrize("helper", [MAILHOG, TESTHELPER], ids=["dockertest", "testing"])
def test_a_test_helper_is_not_the_services_configuration(judge: Judge, helper: str) -> None:
    service = {"cmd/main.go": 'package main\n\nimport "os"\n\nvar port = os.Getenv("PORT")\n'}
    report = judge(
        {**service, "x/helper.go": helper.format(name="TEST_MAILHOG_API")},
        {**service, "x/helper.go": helper.format(name="TEST_MAILHOG_URL")},
        SOURCES,
    )
    assert report.checked is True and report.findings == []
    assert report.coverage.understood == {"PORT": "cmd/main.go:5"}


def test_a_loader_whose_struct_is_not_a_source_is_unknown(judge: Judge) -> None:
    load = LOAD.format(package="main", function="main")
    files = {"internal/config/config.go": CONFIG, "cmd/app/main.go": load}
    report = judge(files, {**files, "README.md": "x\n"}, ["cmd/**/*.go"])
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.file, finding.line) == (
        "config-read-not-understood",
        "cmd/app/main.go",
        11,
    )
    assert "envconfig.Process: the struct it fills, config.Config, is not among" in finding.message
    assert finding.hint == "widen `config.sources` to the Go package that declares `config.Config`"


WRAPPED = (
    'package main\n\nimport "os"\n\nfunc getEnv(key, fallback string) string {{\n'
    "\tif v, ok := os.LookupEnv(key); ok {{\n\t\treturn v\n\t}}\n\treturn fallback\n}}\n\n"
    'func main() {{\n\t_ = getEnv("PORT", "8080")\n'
    '\tfor _, name := range []string{{"A", "B"}} {{\n\t\t_ = getEnv(name, "{default}")\n\t}}\n}}\n'
)


def test_a_wrapper_fed_a_computed_name_in_a_changed_file_is_unknown(judge: Judge) -> None:
    report = judge(
        {"main.go": WRAPPED.format(default="x")}, {"main.go": WRAPPED.format(default="y")}, SOURCES
    )
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.line) == ("config-read-not-understood", 15)
    assert "getEnv(name): a computed variable name" in finding.message
    assert report.coverage.understood == {"PORT": "main.go:13"}


def test_viper_setup_moved_out_of_the_sources_is_one_finding_naming_it(judge: Judge) -> None:
    gets = "".join(f'\t_ = viper.GetString("key{i}")\n' for i in range(12))
    setup = (
        'package {package}\n\nimport "github.com/spf13/viper"\n\nfunc {function}() {{\n'
        '\tviper.SetEnvPrefix("app")\n\tviper.AutomaticEnv()\n{gets}}}\n'
    )
    old = {"cmd/main.go": setup.format(package="main", function="main", gets=gets)}
    new = {
        "cmd/main.go": 'package main\n\nimport "example.com/app/setup"\n\nfunc main() {\n'
        "\tsetup.Load()\n}\n",
        "setup/setup.go": setup.format(package="setup", function="Load", gets=gets),
    }
    report = judge(old, new, ["cmd/**/*.go"])
    assert report.checked is False
    [lost] = report.findings
    assert lost.rule == "config-loader-lost"
    assert "(12 of them through viper.SetEnvPrefix at cmd/main.go:6)" in lost.message


def test_urfave_cli_v1_env_var_lists_its_names(judge: Judge) -> None:
    flag = 'Name: "dsn", EnvVar: "DATABASE_URL,DB_URL"'
    report = judge(cli(flag, version=""), cli('Name: "dsn", EnvVar: "DB_URL"', version=""), SOURCES)
    assert [(r, m.split(" (")[0]) for r, m in rules(report)] == [
        ("config-var-removed", "env var `DATABASE_URL` removed")
    ]


EXPAND = (
    'package main\n\nimport "os"\n\nfunc main() {{\n'
    '\t_ = os.ExpandEnv("${{CACHE_DIR}}/{sub}")\n\tdata, _ := os.ReadFile("config.yaml")\n'
    "\t_ = os.ExpandEnv(string(data)){comment}\n}}\n"
)


def test_expand_env_reads_the_names_it_is_given(judge: Judge) -> None:
    report = judge(
        {"main.go": EXPAND.format(sub="x", comment="")},
        {"main.go": EXPAND.format(sub="y", comment=" // expanded")},
        SOURCES,
    )
    assert report.checked is False
    [finding] = report.findings
    assert (finding.rule, finding.line) == ("config-read-not-understood", 8)
    assert "os.ExpandEnv(string(data)): env vars named inside text" in finding.message
    assert report.coverage.understood == {"CACHE_DIR": "main.go:6"}


def test_configx_with_its_schema_as_a_source_is_not_a_gap(judge: Judge) -> None:
    changed = {**CONFIGX, "cmd/main.go": CONFIGX["cmd/main.go"] + "// comment\n"}
    report = judge(CONFIGX, changed, ["**/*.go", "embedx/config.schema.json"])
    assert not [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert not [u for u in report.coverage.unmodelled if "configx" in u.what]
