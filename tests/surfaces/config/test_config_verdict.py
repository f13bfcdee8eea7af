"""What the config surface's readers do to a release's verdict (docs/verdict.md, "Each change
of the table and its test"): the config report of two real releases, decided beside clean
reports of every other surface."""

from __future__ import annotations

from collections.abc import Callable

from release_safety.contract.reports import SURFACES, ConfigReport, SurfaceReport
from release_safety.release.verdict import Decision, decide

Judge = Callable[..., ConfigReport]
ENVCONFIG = (
    'package main\n\nimport "github.com/kelseyhightower/envconfig"\n\n'
    "type Config struct {\n\tSMTP struct {\n\t\tMaxFrequency int `TAG`\n\t}\n}\n\n"
    'func main() {\n\tvar c Config\n\t_ = envconfig.Process("app", &c)\n}\n'
)


def decided(report: ConfigReport) -> Decision:
    others = [SurfaceReport(surface=s, checked=True) for s in SURFACES if s != "config"]
    return decide([*others, report])


def test_example_env_values_changing_leave_the_release_true(judge: Judge) -> None:
    report = judge(
        {"server/development.env": "REDIS_DSN=redis://localhost:8078\n"},
        {"server/development.env": "REDIS_DSN=redis://localhost\n"},
        ("server/development.env",),
    )
    assert (decided(report).rolling_update_safe, decided(report).row) == (True, 4)


def test_a_variable_renamed_by_split_words_makes_the_release_false(judge: Judge) -> None:
    report = judge(
        {"cmd/main.go": ENVCONFIG.replace("TAG", 'json:"-"')},
        {"cmd/main.go": ENVCONFIG.replace("TAG", 'split_words:"true"')},
        ("cmd/*.go",),
    )
    decision = decided(report)
    assert (decision.rolling_update_safe, decision.row) == (False, 1)
    assert [f.rule for f in decision.reasons] == ["config-var-renamed"]


def test_a_default_flipped_in_a_struct_tag_makes_the_release_false(judge: Judge) -> None:
    report = judge(
        {"cmd/main.go": ENVCONFIG.replace("TAG", 'default:"false"')},
        {"cmd/main.go": ENVCONFIG.replace("TAG", 'default:"true"')},
        ("cmd/*.go",),
    )
    assert [f.rule for f in decided(report).reasons] == ["config-default-changed"]


def test_a_rename_that_keeps_reading_the_old_name_leaves_the_release_true(judge: Judge) -> None:
    read = 'package main\n\nimport "os"\n\nvar limit = {}\n'
    report = judge(
        {"cmd/main.go": read.format('os.Getenv("TCR_QPS_LIMIT")')},
        {
            "cmd/main.go": read.format(
                'cmp.Or(os.Getenv("REG_ADAPTER_TCR_QPS_LIMIT"), os.Getenv("TCR_QPS_LIMIT"))'
            ).replace('import "os"', 'import (\n\t"cmp"\n\t"os"\n)')
        },
        ("cmd/*.go",),
    )
    assert [f.rule for f in report.findings] == ["config-var-renamed-with-fallback"]
    assert decided(report).rolling_update_safe is True


def test_vendored_code_and_test_files_never_make_a_release_false(judge: Judge) -> None:
    read = 'package x\n\nimport "os"\n\nvar v = os.Getenv("{}")\n'
    report = judge(
        {
            "src/core/main.go": read.format("CORE_URL"),
            "src/core/main_test.go": read.format("HOME"),
            "src/vendor/golang.org/x/sys/arch.go": read.format("GOARCH"),
        },
        {"src/core/main_test.go": None, "src/vendor/golang.org/x/sys/arch.go": None},
        ("src/**/*.go",),
    )
    assert report.findings == []
    assert decided(report).rolling_update_safe is True


def test_a_default_changed_in_a_defaults_file_makes_the_release_false(judge: Judge) -> None:
    report = judge(
        {"config.default.toml": "queue_max_poll_secs = 20\n"},
        {"config.default.toml": "queue_max_poll_secs = 30\n"},
        ({"path": "config.default.toml", "env_prefix": "SVIX_"},),
    )
    assert [f.message for f in decided(report).reasons] == [
        "env var `SVIX_QUEUE_MAX_POLL_SECS` default changed `20` → `30`"
    ]


def test_a_required_variable_dropped_from_the_example_is_an_advisory(judge: Judge) -> None:
    code = "import os\nKEY = os.environ['SIGNING_KEY']\n"
    report = judge(
        {".env.example": "SIGNING_KEY=\nPORT=\n", "app/main.py": code},
        {".env.example": "PORT=\n"},
        (".env.example", "app/*.py"),
    )
    assert [(f.rule, f.severity) for f in report.findings] == [
        ("config-required-var-unlisted", "advisory")
    ]
    assert decided(report).rolling_update_safe is True


def test_a_config_file_that_does_not_parse_makes_the_release_unknown(judge: Judge) -> None:
    report = judge({"conf/app.yaml": "a: 1\n"}, {"conf/app.yaml": "a: [\n"}, ("conf/app.yaml",))
    decision = decided(report)
    assert (decision.rolling_update_safe, decision.row) == ("unknown", 2)
