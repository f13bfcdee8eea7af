"""Go: the variables a service reads, resolved across files, every rule both ways, on real
two-tag repositories."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Files = dict[str, str | None]

SOURCES = ("**/*.go",)
IMPORTS = 'import (\n\t"os"\n\n\t"github.com/kelseyhightower/envconfig"\n)\n'


def envconfig(*smtp: str, extra: str = "") -> Files:
    """An envconfig service: `Process("app", &cfg)` with a nested SMTP struct."""
    fields = "".join(f"\t{f}\n" for f in smtp)
    return {
        "cmd/app/main.go": (
            f'package main\n\n{IMPORTS}\ntype Config struct {{\n\tPort int `default:"8080"`\n'
            f"\tSMTP SMTP\n\tinternal string\n{extra}}}\n\ntype SMTP struct {{\n{fields}}}\n\n"
            'func main() {\n\tvar cfg Config\n\t_ = envconfig.Process("app", &cfg)\n'
            "\t_ = os.Args\n}\n"
        )
    }


def getenv(body: str, imports: str = '"os"') -> Files:
    return {
        "cmd/app/main.go": f"package main\n\nimport ({imports})\n\nfunc main() {{\n{body}\n}}\n"
    }


WRAPPER = (
    'package lib\n\nimport "os"\n\n// GetEnv reads key, else def.\n'
    "func GetEnv(key, def string) string {\n\tif v, ok := os.LookupEnv(key); ok {\n"
    "\t\treturn v\n\t}\n\treturn def\n}\n\n"
    'func MustEnv(key string) string {\n\tv := os.Getenv(key)\n\tif v == "" {\n'
    '\t\tpanic("missing " + key)\n\t}\n\treturn v\n}\n'
)


def wrapped(call: str) -> Files:
    return {
        "lib/env.go": WRAPPER,
        "cmd/app/main.go": (
            f'package main\n\nimport "example.com/svc/lib"\n\nfunc main() {{\n\t_ = {call}\n}}\n'
        ),
    }


def metadata(item: str) -> Files:
    return {
        "config/metadata.go": (
            "package config\n\ntype Item struct {\n\tName string\n\tEnvKey string\n"
            "\tDefaultValue string\n}\n\nvar items = []Item{\n"
            '\t{Name: "auth_mode", EnvKey: "AUTH_MODE", DefaultValue: "db_auth"},\n'
            f"\t{item},\n}}\n"
        ),
        "config/load.go": (
            'package config\n\nimport "os"\n\nfunc load() {\n\tfor _, item := range items {\n'
            "\t\tif v, ok := os.LookupEnv(item.EnvKey); ok {\n\t\t\t_ = v\n\t\t}\n\t}\n}\n"
        ),
    }


CASES: list[tuple[str, Files, Files, list[tuple[str, str]]]] = [
    (
        "envconfig-split-words-renames-the-variable",
        envconfig('MaxFrequency int `json:"-"`'),
        envconfig('MaxFrequency int `split_words:"true"`'),
        [
            (
                "config-var-renamed",
                "env var `APP_SMTP_MAXFREQUENCY` renamed to `APP_SMTP_MAX_FREQUENCY` without "
                "fallback",
            )
        ],
    ),
    (
        "envconfig-default-flipped",
        envconfig('Enabled bool `default:"false"`'),
        envconfig('Enabled bool `default:"true"`'),
        [
            (
                "config-default-changed",
                "env var `APP_SMTP_ENABLED` default changed `false` → `true`",
            )
        ],
    ),
    (
        "envconfig-unchanged-reformatted",
        envconfig('Enabled bool `default:"false"`'),
        envconfig('Enabled   bool   `default:"false" json:"enabled"`'),
        [],
    ),
    (
        "envconfig-required-added-ignored-and-unexported-not",
        envconfig("Host string"),
        envconfig(
            "Host string",
            'Token string `required:"true"`',
            'Debug bool `ignored:"true"`',
            "secret string",
        ),
        [
            (
                "config-required-var-added",
                "new env var `APP_SMTP_TOKEN` required at start-up with no default",
            )
        ],
    ),
    (
        "envconfig-embedded-struct-is-flattened",
        envconfig("Host string"),
        envconfig("Host string", extra="\tLimits\n")
        | {"cmd/app/limits.go": "package main\n\ntype Limits struct {\n\tBurst int\n}\n"},
        [("config-optional-var-added", "new optional env var `APP_BURST` (default (none))")],
    ),
    (
        "envconfig-tag-keeps-the-old-name-as-fallback",
        envconfig("Host string"),
        envconfig('Host string `envconfig:"SMTP_HOST"`'),
        [
            ("config-optional-var-added", "new optional env var `SMTP_HOST` (default (none))"),
            (
                "config-var-renamed",
                "env var `APP_SMTP_HOST` renamed to `APP_SMTP_SMTP_HOST` without fallback",
            ),
        ],
    ),
    (
        "caarlos0-prefixed-nested-default-changed",
        getenv(
            '\tvar cfg Config\n\t_ = env.ParseWithOptions(&cfg, env.Options{Prefix: "APP_"})',
            '"github.com/caarlos0/env/v11"',
        )
        | {
            "cmd/app/config.go": (
                'package main\n\ntype Config struct {\n\tDB DB `envPrefix:"DB_"`\n}\n\n'
                'type DB struct {\n\tHost string `env:"HOST" envDefault:"localhost"`\n}\n'
            )
        },
        {
            "cmd/app/config.go": (
                'package main\n\ntype Config struct {\n\tDB DB `envPrefix:"DB_"`\n}\n\n'
                'type DB struct {\n\tHost string `env:"HOST" envDefault:"db"`\n'
                '\tDSN string `env:"DSN,notEmpty"`\n}\n'
            )
        },
        [
            ("config-default-changed", "env var `APP_DB_HOST` default changed `localhost` → `db`"),
            (
                "config-required-var-added",
                "new env var `APP_DB_DSN` required at start-up with no default",
            ),
        ],
    ),
    (
        "viper-prefix-replacer-defaults-and-bindings",
        getenv(
            '\tviper.SetEnvPrefix("app")\n'
            '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n\tviper.AutomaticEnv()\n'
            '\tviper.SetDefault("db.port", 5432)\n\t_ = viper.GetString("db.host")\n'
            '\t_ = viper.BindEnv("token", "APP_TOKEN")',
            '"strings"; "github.com/spf13/viper"',
        ),
        getenv(
            '\tviper.SetEnvPrefix("app")\n'
            '\tviper.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))\n\tviper.AutomaticEnv()\n'
            '\tviper.SetDefault("db.port", 6432)\n\t_ = viper.GetString("db.host")\n'
            '\t_ = viper.BindEnv("token", "APP_API_TOKEN", "APP_TOKEN")',
            '"strings"; "github.com/spf13/viper"',
        ),
        [
            ("config-default-changed", "env var `APP_DB_PORT` default changed `5432` → `6432`"),
            (
                "config-var-renamed-with-fallback",
                "env var `APP_TOKEN` renamed to `APP_API_TOKEN`; `APP_TOKEN` still read as a "
                "fallback",
            ),
        ],
    ),
    (
        "constant-in-another-file-renamed",
        getenv("\t_ = os.Getenv(csrfKeyEnv)")
        | {"cmd/app/const.go": 'package main\n\nconst csrfKeyEnv = "CSRF_KEY"\n'},
        {"cmd/app/const.go": 'package main\n\nconst csrfKeyEnv = "HARBOR_CSRF_KEY"\n'},
        [
            (
                "config-var-renamed",
                "env var `CSRF_KEY` renamed to `HARBOR_CSRF_KEY` without fallback",
            )
        ],
    ),
    (
        "constant-of-an-imported-package",
        getenv("\t_ = os.Getenv(common.CoreURL)", '"os"; "example.com/svc/common"')
        | {"common/const.go": 'package common\n\nconst CoreURL = "CORE_URL"\n'},
        {"common/const.go": 'package common\n\nconst CoreURL = "CORE_URL"\n\nconst X = 1\n'},
        [],
    ),
    (
        "wrapper-default-changed",
        wrapped('lib.GetEnv("PORT", "8080")'),
        wrapped('lib.GetEnv("PORT", "9090")'),
        [("config-default-changed", "env var `PORT` default changed `8080` → `9090`")],
    ),
    (
        "wrapper-that-panics-makes-it-required",
        wrapped('lib.GetEnv("PORT", "8080")'),
        wrapped('lib.GetEnv("PORT", "8080") + lib.MustEnv("DSN")'),
        [("config-required-var-added", "new env var `DSN` required at start-up with no default")],
    ),
    (
        "read-through-a-conversion-renamed",
        getenv(
            '\tvar limit, _ = strconv.Atoi(os.Getenv("TCR_QPS_LIMIT"))\n\t_ = limit',
            '"os"; "strconv"',
        ),
        getenv(
            '\tvar limit, _ = strconv.Atoi(os.Getenv("REG_ADAPTER_TCR_QPS_LIMIT"))\n\t_ = limit',
            '"os"; "strconv"',
        ),
        [
            (
                "config-var-renamed",
                "env var `TCR_QPS_LIMIT` renamed to `REG_ADAPTER_TCR_QPS_LIMIT` without fallback",
            )
        ],
    ),
    (
        "keyed-literal-default-changed-and-renamed",
        metadata('{Name: "read_only", EnvKey: "READ_ONLY", DefaultValue: "false"}'),
        metadata('{Name: "read_only", EnvKey: "HARBOR_READ_ONLY", DefaultValue: "true"}'),
        [
            (
                "config-var-renamed",
                "env var `READ_ONLY` renamed to `HARBOR_READ_ONLY` without fallback",
            )
        ],
    ),
    (
        "keyed-literal-default-changed",
        metadata('{Name: "read_only", EnvKey: "READ_ONLY", DefaultValue: "false"}'),
        metadata('{Name: "read_only", EnvKey: "READ_ONLY", DefaultValue: "true"}'),
        [("config-default-changed", "env var `READ_ONLY` default changed `false` → `true`")],
    ),
    (
        "test-files-and-vendored-code-are-not-the-service",
        getenv('\t_ = os.Getenv("PORT")')
        | {
            "cmd/app/main_test.go": 'package main\n\nimport "os"\n\nvar home = os.Getenv("HOME")\n',
            "vendor/x/sys/arch.go": 'package sys\n\nimport "os"\n\nvar a = os.Getenv("GOARCH")\n',
            "cmd/app/testdata/gen.go": (
                'package gen\n\nimport "os"\n\nvar k = os.Getenv("AWS_ACCESS_KEY")\n'
            ),
        },
        {
            "cmd/app/main_test.go": None,
            "vendor/x/sys/arch.go": None,
            "cmd/app/testdata/gen.go": None,
        },
        [],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_go_rules(
    seen: Callable[..., list[tuple[str, str]]],
    old: Files,
    new: Files,
    expected: list[tuple[str, str]],
) -> None:
    assert seen(old, new, SOURCES) == expected


def test_a_read_is_placed_at_its_line(judge: Callable[..., ConfigReport]) -> None:
    report = judge(
        wrapped('lib.GetEnv("PORT", "8080")'), wrapped('lib.GetEnv("PORT", "9090")'), SOURCES
    )
    [finding] = report.findings
    assert (finding.file, finding.line) == ("cmd/app/main.go", 6)


def test_a_default_read_from_another_variable_is_a_fallback(
    seen: Callable[..., list[tuple[str, str]]],
) -> None:
    old = getenv('\tv := os.Getenv("REDIS_URL_CORE")\n\t_ = v')
    new = getenv(
        '\tv := os.Getenv("REDIS_URL_CACHE")\n\tif v == "" {\n'
        '\t\tv = os.Getenv("REDIS_URL_CORE")\n\t}\n\t_ = v'
    )
    assert seen(old, new, SOURCES) == [
        (
            "config-var-renamed-with-fallback",
            "env var `REDIS_URL_CORE` renamed to `REDIS_URL_CACHE`; `REDIS_URL_CORE` still read "
            "as a fallback",
        )
    ]
