"""Go: an `os.Environ()` scan whose key is only matched against a literal set (miniflux's
config parser, both of its shapes, written small) reads exactly that set; any other scan stays
`config-read-not-understood`. Each release is a real two-tag repository."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from release_safety.contract.reports import ConfigReport

Files = dict[str, str | None]
Judge = Callable[..., ConfigReport]
Seen = Callable[..., list[tuple[str, str]]]
SOURCES = ["internal/**/*.go"]

SWITCH = """\
package config

import (
\t"fmt"
\t"os"
\t"strings"
)

const (
\tdefaultLogFile = "stderr"
\tdefaultWorkers = 4 * 4
\tdefaultHSTS    = true
\tdefaultBaseURL = "http://localhost"
)

type options struct {
\tlogFile string
\tworkers int
\thsts    bool
\tport    string
\tbaseURL string
}

func ParseEnvironmentVariables() (*options, error) {
\topts := &options{
\t\tlogFile: defaultLogFile, workers: defaultWorkers, hsts: defaultHSTS, baseURL: defaultBaseURL,
\t}
\terr := parseLines(opts, os.Environ())
\treturn opts, err
}

func parseLines(opts *options, lines []string) error {
\tfor lineNum, line := range lines {
\t\tkey, value, ok := strings.Cut(line, "=")
\t\tif !ok {
\t\t\treturn fmt.Errorf("invalid format on line %d", lineNum)
\t\t}
\t\tkey, value = strings.TrimSpace(key), strings.TrimSpace(value)
\t\tswitch key {
\t\tcase "LOG_FILE":
\t\t\topts.logFile = parseString(value, defaultLogFile)
\t\tcase "WORKER_POOL_SIZE":
\t\t\topts.workers = parseInt(value, defaultWorkers)
\t\tcase "DISABLE_HSTS":
\t\t\topts.hsts = !parseBool(value, defaultHSTS)
\t\tcase "PORT":
\t\t\topts.port = value
\t\tcase "BASE_URL":
\t\t\topts.baseURL = strings.TrimSuffix(value, "/")
\t\t}
\t}
\treturn nil
}
"""

OPTIONS = """\
package config

const defaultBaseURL = "http://localhost"

type configValue struct {
\tparsedStringValue string
\tparsedIntValue    int
\trawValue          string
\ttargetKey         string
}

type configOptions struct {
\toptions map[string]*configValue
}

func NewConfigOptions() *configOptions {
\treturn &configOptions{
\t\toptions: map[string]*configValue{
\t\t\t"BASE_URL": {
\t\t\t\tparsedStringValue: defaultBaseURL,
\t\t\t\trawValue:          defaultBaseURL,
\t\t\t},
\t\t\t"BATCH_SIZE": {
\t\t\t\tparsedIntValue: 100,
\t\t\t\trawValue:       "100",
\t\t\t},
\t\t\t"DATABASE_URL": {
\t\t\t\tparsedStringValue: "user=postgres",
\t\t\t\trawValue:          "user=postgres",
\t\t\t},
\t\t\t"DATABASE_URL_FILE": {
\t\t\t\trawValue:  "",
\t\t\t\ttargetKey: "DATABASE_URL",
\t\t\t},
\t\t},
\t}
}

func (c *configOptions) BaseURL() string {
\treturn c.options["BASE_URL"].parsedStringValue
}

func (c *configOptions) BatchSize() int {
\treturn c.options["BATCH_SIZE"].parsedIntValue
}
"""

PARSER = """\
package config

import (
\t"fmt"
\t"log/slog"
\t"os"
\t"strings"
)

type configParser struct {
\toptions *configOptions
}

func (cp *configParser) ParseEnvironmentVariables() (*configOptions, error) {
\tif err := cp.parseLines(os.Environ()); err != nil {
\t\treturn nil, err
\t}
\treturn cp.options, nil
}

func (cp *configParser) parseLines(lines []string) error {
\tfor lineNum, line := range lines {
\t\tkey, value, ok := strings.Cut(line, "=")
\t\tif !ok {
\t\t\treturn fmt.Errorf("invalid format on line %d", lineNum)
\t\t}
\t\tkey, value = strings.TrimSpace(key), strings.TrimSpace(value)
\t\tif err := cp.parseLine(key, value); err != nil {
\t\t\treturn err
\t\t}
\t}
\treturn nil
}

func (cp *configParser) parseLine(key, value string) error {
\tfield, exists := cp.options.options[key]
\tif !exists {
\t\t// WARNED
\t\treturn nil
\t}
\tif value == "" {
\t\treturn fmt.Errorf("empty value for key %s", key)
\t}
\tfield.rawValue = value
\treturn nil
}
"""
WARNED = (
    'if key == "FILTER_ENTRY_MAX_AGE_DAYS" {\n'
    '\t\t\tslog.Warn("FILTER_ENTRY_MAX_AGE_DAYS is deprecated")\n\t\t}'
)


def switch(text: str = SWITCH) -> Files:
    return {"internal/config/parser.go": text}


def table(options: str = OPTIONS, parser: str = PARSER) -> Files:
    return {"internal/config/options.go": options, "internal/config/parser.go": parser}


def test_both_shapes_are_checked_and_quiet_when_nothing_changes(seen: Seen) -> None:
    assert seen(switch(), switch(SWITCH.replace("lineNum", "n")), SOURCES) == []
    assert seen(table(), table(OPTIONS + "\n// reordered nothing\n"), SOURCES) == []


EMPTY = {"internal/config/parser.go": "package config\n"}


def test_the_switch_shape_reads_each_case_with_its_default(judge: Judge) -> None:
    """Which variables, where and with which default (a parse helper's fallback, else the
    value the field starts with: `strings.TrimSuffix(value, "/")` is no helper): read back as
    a release that adds them."""
    report = judge(EMPTY, switch(), SOURCES)
    assert [(f.message, f.line) for f in report.findings] == [
        ("new optional env var `LOG_FILE` (default `stderr`)", 40),
        ("new optional env var `WORKER_POOL_SIZE` (default `16`)", 42),
        ("new optional env var `DISABLE_HSTS` (default `false`)", 44),
        ("new optional env var `PORT` (default (none))", 46),
        ("new optional env var `BASE_URL` (default `http://localhost`)", 48),
    ]


def test_the_table_shape_reads_each_key_with_its_entry_default(judge: Judge) -> None:
    report = judge({**EMPTY, "internal/config/options.go": "package config\n"}, table(), SOURCES)
    assert [(f.message, f.file, f.line) for f in report.findings] == [
        ("new optional env var `BASE_URL` (default `http://localhost`)", OPTIONS_GO, 19),
        ("new optional env var `BATCH_SIZE` (default `100`)", OPTIONS_GO, 23),
        ("new optional env var `DATABASE_URL` (default `user=postgres`)", OPTIONS_GO, 27),
        ("new optional env var `DATABASE_URL_FILE` (default ``)", OPTIONS_GO, 31),
    ]


OPTIONS_GO = "internal/config/options.go"
SWITCH_CASES: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    (
        "a-case-removed",
        '\t\tcase "WORKER_POOL_SIZE":\n\t\t\topts.workers = parseInt(value, defaultWorkers)\n',
        "",
        [("config-var-removed", "env var `WORKER_POOL_SIZE` removed (previous default `16`)")],
    ),
    (
        "a-default-constant-changed",
        'defaultLogFile = "stderr"',
        'defaultLogFile = "stdout"',
        [("config-default-changed", "env var `LOG_FILE` default changed `stderr` → `stdout`")],
    ),
    (
        "a-negated-default-changed",
        "defaultHSTS    = true",
        "defaultHSTS    = false",
        [("config-default-changed", "env var `DISABLE_HSTS` default changed `false` → `true`")],
    ),
    (
        "the-initial-value-of-the-field-a-case-sets-changed",
        'defaultBaseURL = "http://localhost"',
        'defaultBaseURL = "http://0.0.0.0"',
        [
            (
                "config-default-changed",
                "env var `BASE_URL` default changed `http://localhost` → `http://0.0.0.0`",
            )
        ],
    ),
    (
        "a-key-renamed",
        'case "LOG_FILE":',
        'case "LOG_OUTPUT":',
        [("config-var-renamed", "env var `LOG_FILE` renamed to `LOG_OUTPUT` without fallback")],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [(old, new, expected) for _, old, new, expected in SWITCH_CASES],
    ids=[case[0] for case in SWITCH_CASES],
)
def test_a_switch_on_the_key_is_read_as_its_cases(
    seen: Seen, old: str, new: str, expected: list[tuple[str, str]]
) -> None:
    assert old in SWITCH
    assert seen(switch(), switch(SWITCH.replace(old, new)), SOURCES) == expected


CUT = (
    '\t\tkey, value, ok := strings.Cut(line, "=")\n\t\tif !ok {\n'
    '\t\t\treturn fmt.Errorf("invalid format on line %d", lineNum)\n\t\t}\n'
    "\t\tkey, value = strings.TrimSpace(key), strings.TrimSpace(value)\n"
)
SPLIT = (
    '\t\tfields := strings.SplitN(line, "=", 2)\n\t\tif len(fields) != 2 {\n'
    '\t\t\treturn fmt.Errorf("invalid format on line %d", lineNum)\n\t\t}\n'
    "\t\tkey := strings.TrimSpace(fields[0])\n\t\tvalue := strings.TrimSpace(fields[1])\n"
)


def test_a_split_into_parts_is_read_like_a_cut(judge: Judge, seen: Seen) -> None:
    """miniflux up to 2.2.10: `fields := strings.SplitN(line, "=", 2)`, then the parts
    trimmed; a part used any other way is not understood."""
    assert CUT in SWITCH
    split = SWITCH.replace(CUT, SPLIT)
    assert seen(switch(), switch(split), SOURCES) == []
    removed = split.replace('\t\tcase "PORT":\n\t\t\topts.port = value\n', "")
    assert seen(switch(split), switch(removed), SOURCES) == [
        ("config-var-removed", "env var `PORT` removed (previous default (none))")
    ]
    stored = split.replace("if len(fields) != 2 {", "if seen[fields[0]] {")
    assert judge(switch(split), switch(stored), SOURCES).checked is False


def test_a_constant_renamed_with_its_value_kept_is_quiet(seen: Seen) -> None:
    kept = SWITCH.replace("defaultLogFile", "defaultLogOutput")
    assert seen(switch(), switch(kept), SOURCES) == []


TABLE_CASES: list[tuple[str, str, str, list[tuple[str, str]]]] = [
    (
        "an-entry-removed",
        '\t\t\t"BATCH_SIZE": {\n\t\t\t\tparsedIntValue: 100,\n\t\t\t\trawValue:       "100",\n'
        "\t\t\t},\n",
        "",
        [("config-var-removed", "env var `BATCH_SIZE` removed (previous default `100`)")],
    ),
    (
        "a-default-changed",
        'parsedIntValue: 100,\n\t\t\t\trawValue:       "100"',
        'parsedIntValue: 50,\n\t\t\t\trawValue:       "50"',
        [("config-default-changed", "env var `BATCH_SIZE` default changed `100` → `50`")],
    ),
    (
        "a-default-constant-changed",
        'defaultBaseURL = "http://localhost"',
        'defaultBaseURL = "http://127.0.0.1"',
        [
            (
                "config-default-changed",
                "env var `BASE_URL` default changed `http://localhost` → `http://127.0.0.1`",
            )
        ],
    ),
    (
        "a-key-renamed-with-its-accessor-kept",
        '"BATCH_SIZE"',
        '"POLLING_BATCH_SIZE"',
        [
            (
                "config-var-renamed",
                "env var `BATCH_SIZE` renamed to `POLLING_BATCH_SIZE` without fallback",
            )
        ],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [(old, new, expected) for _, old, new, expected in TABLE_CASES],
    ids=[case[0] for case in TABLE_CASES],
)
def test_a_lookup_in_a_map_literal_is_read_as_its_keys(
    seen: Seen, old: str, new: str, expected: list[tuple[str, str]]
) -> None:
    assert old in OPTIONS
    assert seen(table(), table(OPTIONS.replace(old, new)), SOURCES) == expected


def test_an_option_moved_from_the_table_to_a_warning_is_removed(seen: Seen) -> None:
    """miniflux 2.2.17: `FILTER_ENTRY_MAX_AGE_DAYS` left the table for a deprecation warning;
    a key only warned about is not read. Warned at both releases, nothing changed."""
    entry = '\t\t\t"FILTER_ENTRY_MAX_AGE_DAYS": {\n\t\t\t\trawValue: "0",\n\t\t\t},\n'
    listed = OPTIONS.replace('\t\t\t"BASE_URL": {', entry + '\t\t\t"BASE_URL": {')
    warned = PARSER.replace("// WARNED", WARNED)
    assert seen(table(listed), table(OPTIONS, warned), SOURCES) == [
        ("config-var-removed", "env var `FILTER_ENTRY_MAX_AGE_DAYS` removed (previous default `0`)")
    ]
    assert seen(table(OPTIONS, warned), table(OPTIONS, warned), SOURCES) == []


SCAN_GO = """package config

import (
	"os"
	"strings"
)

func Load() map[string]string {
	found := map[string]string{}
	for _, pair := range os.Environ() {
		key, value, _ := strings.Cut(pair, "=")
		CHECK
	}
	return found
}
"""
KNOWN = 'switch key {\n\t\tcase "PORT":\n\t\t\tfound["port"] = value\n\t\t}'


@pytest.mark.parametrize(
    ("check", "message"),
    [
        pytest.param(
            'if strings.HasPrefix(key, "APP_") {\n\t\t\tfound[key] = value\n\t\t}',
            "starting with `APP_`",
            id="a-prefix",
        ),
        pytest.param("found[key] = value", "a prefix scan, a pattern", id="a-store"),
        pytest.param("os.Setenv(key, value)", "a prefix scan, a pattern", id="a-call-not-followed"),
        pytest.param(
            'if key == os.Getenv("WANTED") {\n\t\t\tfound[key] = value\n\t\t}',
            "a prefix scan, a pattern",
            id="a-computed-comparison",
        ),
    ],
)
def test_any_other_scan_stays_not_understood(judge: Judge, check: str, message: str) -> None:
    """The quiet twin is the same loop matching the key with a literal switch."""
    path = "internal/config/load.go"
    known = judge(
        {path: SCAN_GO.replace("CHECK", KNOWN)}, {path: SCAN_GO.replace("CHECK", KNOWN)}, SOURCES
    )
    assert (known.checked, known.findings) == (True, [])
    report = judge(
        {path: SCAN_GO.replace("CHECK", KNOWN)}, {path: SCAN_GO.replace("CHECK", check)}, SOURCES
    )
    assert report.checked is False
    [gap] = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert (gap.file, gap.line) == (path, 10)
    assert "os.Environ() is read" in gap.message and message in gap.message


def test_the_entries_held_in_a_variable_are_followed(seen: Seen) -> None:
    path = "internal/config/load.go"
    known = SCAN_GO.replace("CHECK", KNOWN)
    held = known.replace(
        "\tfor _, pair := range os.Environ() {",
        "\tall := os.Environ()\n\tfor _, pair := range all {",
    )
    assert seen({path: known}, {path: held}, SOURCES) == []
    dropped = held.replace('case "PORT"', 'case "HTTP_PORT"')
    assert seen({path: held}, {path: dropped}, SOURCES) == [
        ("config-var-renamed", "env var `PORT` renamed to `HTTP_PORT` without fallback")
    ]


def test_a_key_compared_with_a_literal_is_read_unless_only_warned_about(seen: Seen) -> None:
    path = "internal/config/load.go"
    known = SCAN_GO.replace("CHECK", KNOWN)
    compared = SCAN_GO.replace(
        "CHECK", KNOWN + '\n\t\tif key == "DEBUG" {\n\t\t\tfound["debug"] = value\n\t\t}'
    )
    assert seen({path: known}, {path: compared}, SOURCES) == [
        ("config-optional-var-added", "new optional env var `DEBUG` (default (none))")
    ]
    warned = compared.replace('found["debug"] = value', 'log.Printf("DEBUG is gone")')
    assert seen({path: known}, {path: warned}, SOURCES) == []


def test_a_table_with_a_computed_key_stays_not_understood(judge: Judge) -> None:
    computed = OPTIONS.replace('\t\t\t"DATABASE_URL_FILE": {', '\t\t\tprefix + "URL_FILE": {')
    report = judge(table(), table(computed), SOURCES)
    assert report.checked is False
    [gap] = [f for f in report.findings if f.rule == "config-read-not-understood"]
    assert (gap.file, gap.line) == ("internal/config/parser.go", 15)
    assert judge(table(), table(), SOURCES).checked is True


def test_a_table_the_package_adds_to_stays_not_understood(judge: Judge) -> None:
    """`table[name] = ...` elsewhere: the literal keys are not the whole set."""
    added = OPTIONS + (
        "\nfunc (c *configOptions) add(name string) {\n\tc.options[name] = &configValue{}\n}\n"
    )
    assert judge(table(), table(added), SOURCES).checked is False
    edited = OPTIONS + (
        '\nfunc (c *configOptions) set() {\n\tc.options["BASE_URL"].rawValue = "x"\n}\n'
    )
    assert judge(table(), table(edited), SOURCES).checked is True


def test_a_table_not_found_once_in_the_package_stays_not_understood(judge: Judge) -> None:
    twice = {
        **table(),
        "internal/config/more.go": 'package config\n\nvar options = map[string]int{"X": 1}\n',
    }
    report = judge(table(), twice, SOURCES)
    assert report.checked is False
