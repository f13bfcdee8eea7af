import pytest

from release_safety.common.errors import InputError
from release_safety.contract.versions import TagPattern, Version, is_release, plain_version


def test_parts_compare_numerically() -> None:
    assert Version.parse("0.2155.9") < Version.parse("0.2155.10")
    assert Version.parse("0.9999.0") < Version.parse("1.0.0")
    assert sorted(["1.10.0", "1.2.0", "1.9.3"], key=Version.parse) == ["1.2.0", "1.9.3", "1.10.0"]


@pytest.mark.parametrize(
    "text", ["1.2", "1.2.3-rc1", "pr-123", "v01.2.3", "V1.2.3", "vv1.2.3", "", "1.2.3.4"]
)
def test_only_plain_versions_are_releases(text: str) -> None:
    assert not is_release(text)
    with pytest.raises(InputError, match="not a release version"):
        Version.parse(text)


def test_a_version_given_with_a_tags_v_is_that_version_written_plain() -> None:
    assert Version.parse("v1.4.1") == Version.parse("1.4.1") == Version(1, 4, 1)
    assert str(Version.parse("v1.4.1")) == "1.4.1"
    assert not is_release("v1.4.1")  # the contract's documents write it plain
    assert plain_version("v1.4.1") == "1.4.1"
    assert plain_version("pr-123") == "pr-123"


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("1.2.3", "1.2.3"),
        ("v1.2.3", "1.2.3"),
        ("v1.2.3-rc.1", None),
        ("pr-123", None),
        ("x1.2.3", None),
    ],
)
def test_default_tag_pattern(tag: str, expected: str | None) -> None:
    found = TagPattern().version_of(tag)
    assert (str(found) if found else None) == expected


def test_custom_tag_pattern() -> None:
    pattern = TagPattern(r"^release-(?P<version>\d+\.\d+\.\d+)$")
    assert str(pattern.version_of("release-2.0.1")) == "2.0.1"
    assert pattern.version_of("2.0.1") is None


@pytest.mark.parametrize("pattern", [r"^v(\d+)$", "("])
def test_bad_tag_patterns_are_input_errors(pattern: str) -> None:
    with pytest.raises(InputError):
        TagPattern(pattern)
