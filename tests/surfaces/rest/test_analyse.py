"""The surface entry point on real git repositories: locating, memoising, failing closed."""

from __future__ import annotations

from collections.abc import Callable

from rest_pairs import FIXTURES

from release_safety.git.builder import RepoBuilder
from release_safety.git.repository import GitRepo
from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import Settings
from release_safety.surfaces.rest.analyse import analyse
from release_safety.surfaces.rest.documents import _memo

BASE = (FIXTURES / "refactor" / "ref-extraction" / "base.yaml").read_text(encoding="utf-8")
REVISION = (FIXTURES / "refactor" / "ref-extraction" / "revision.yaml").read_text(encoding="utf-8")
BROKEN = REVISION.replace('        id: {$ref: "#/components/schemas/Id"}\n', "")

MakeRepo = Callable[[str], RepoBuilder]


def _two_commits(make_repo: MakeRepo, first: dict[str, str], second: dict[str, str | None]):
    builder = make_repo("repo")
    for path, text in first.items():
        builder.write(path, text)
    old = builder.commit("one")
    for path, text in second.items():
        if text is None:
            builder.delete(path)
        else:
            builder.write(path, text)
    new = builder.commit("two")
    repo = GitRepo(builder.path)
    return repo.snapshot(old), repo.snapshot(new)


def test_breaking_change_between_refs_names_line_and_rule(make_repo: MakeRepo) -> None:
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": BROKEN})
    report = analyse(old, new, Settings())
    assert report.checked and report.surface == "rest"
    assert [(f.rule, f.severity, f.file, f.line, f.message) for f in report.findings] == [
        (
            "response-property-removed",
            "breaking",
            "openapi.yaml",
            19,
            "GET /pets — #/components/schemas/Pet: required property `id` removed",
        )
    ]


def test_spec_moved_between_refs_is_still_compared(make_repo: MakeRepo) -> None:
    old, new = _two_commits(
        make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": None, "api/openapi.yaml": BROKEN}
    )
    explicit = Settings.model_validate({"rest": {"specs": ["api/openapi.yaml"]}})
    for settings in (explicit, Settings()):
        report = analyse(old, new, settings)
        assert report.checked
        assert [(f.rule, f.file) for f in report.findings] == [
            ("document-moved", "api/openapi.yaml"),
            ("response-property-removed", "api/openapi.yaml"),
        ]
        assert (report.coverage.old, report.coverage.new) == (
            {"openapi.yaml": old.blob_id("openapi.yaml")},
            {"api/openapi.yaml": new.blob_id("api/openapi.yaml")},
        )


def test_no_spec_at_either_ref_is_not_checked(make_repo: MakeRepo) -> None:
    old, new = _two_commits(make_repo, {"README.md": "a"}, {"README.md": "b"})
    report = analyse(old, new, Settings())
    assert not report.checked
    assert [(f.rule, f.severity) for f in report.findings] == [("surface-not-checked", "unknown")]
    reason = report.reason or ""
    assert reason.startswith(f"no document found at {old.ref} or {new.ref}; tried ")
    assert "rest.specs = '**/openapi.yaml'" in reason and "'**/swagger.json'" in reason


def test_spec_gone_at_new_ref_is_not_checked(make_repo: MakeRepo) -> None:
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": None})
    report = analyse(old, new, Settings())
    assert not report.checked
    assert report.findings[0].severity == "unknown"
    assert report.reason == f"openapi.yaml is present at {old.ref} but gone at {new.ref}"


def test_unloadable_spec_is_not_checked_with_the_reason(make_repo: MakeRepo) -> None:
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": "a: [1, 2\n"})
    report = analyse(old, new, Settings())
    assert not report.checked
    assert report.reason is not None and "not valid YAML" in report.reason
    assert report.findings[0].file == "openapi.yaml"


def test_bad_ref_is_not_checked(make_repo: MakeRepo) -> None:
    bad = REVISION.replace("#/components/schemas/Id", "#/components/schemas/Missing")
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": bad})
    report = analyse(old, new, Settings())
    assert not report.checked
    assert "unresolvable $ref '#/components/schemas/Missing'" in (report.reason or "")


def test_external_ref_is_not_followed(make_repo: MakeRepo) -> None:
    bad = REVISION.replace("#/components/schemas/Id", "common.yaml#/Id")
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": bad})
    report = analyse(old, new, Settings())
    assert not report.checked
    assert "external refs are off" in (report.reason or "")


def test_first_release_is_checked_without_breaking(make_repo: MakeRepo) -> None:
    builder = make_repo("repo")
    builder.write("openapi.yaml", BASE)
    commit = builder.commit("one")
    report = analyse(None, GitRepo(builder.path).snapshot(commit), Settings())
    assert report.checked and report.breaking() == []


def test_documents_are_parsed_once_per_blob(make_repo: MakeRepo) -> None:
    old, new = _two_commits(make_repo, {"openapi.yaml": BASE}, {"openapi.yaml": BROKEN})
    _memo.clear()
    first = analyse(old, new, Settings())
    stored = dict(_memo)
    assert set(stored) == {old.blob_id("openapi.yaml"), new.blob_id("openapi.yaml")}
    second = analyse(old, new, Settings())
    assert first.findings == second.findings
    assert all(_memo[key] is value for key, value in stored.items())


SPEC_WITH_FILES = """\
openapi: 3.1.0
info: {title: pets, version: "1"}
paths:
  /pets:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "schemas/pet.yaml#/Pet"}
"""
PET_FILE = """\
Pet:
  type: object
  required: [id]
  properties:
    id: {$ref: "#/Id"}
    tag: {$ref: "../common.yaml#/Tag"}
Id: {type: string}
"""


def test_external_refs_are_followed_when_enabled(make_repo: MakeRepo) -> None:
    files = {
        "api/openapi.yaml": SPEC_WITH_FILES,
        "api/schemas/pet.yaml": PET_FILE,
        "api/common.yaml": "Other: {type: integer}\nTag: {type: string, maxLength: 10}\n",
    }
    loosened = "Other: {type: integer}\nTag: {type: string, maxLength: 20}\n"
    old, new = _two_commits(make_repo, files, {"api/common.yaml": loosened})
    on = Settings.model_validate({"rest": {"specs": ["api/openapi.yaml"], "external_refs": True}})
    report = analyse(old, new, on)
    assert report.checked
    assert [(f.rule, f.message) for f in report.findings] == [
        (
            "response-bound-loosened",
            "GET /pets — /api/common.yaml#/Tag: maxLength loosened from 10 to 20",
        )
    ]
    # the file and line of the schema that changed, not the root document's first line
    assert [(f.file, f.line) for f in report.findings] == [("api/common.yaml", 2)]
    off = Settings.model_validate({"rest": {"specs": ["api/openapi.yaml"]}})
    refused = analyse(old, new, off)
    assert not refused.checked
    assert "external $ref 'schemas/pet.yaml#/Pet' not followed" in (refused.reason or "")


def test_external_ref_to_a_missing_file_is_not_checked(make_repo: MakeRepo) -> None:
    files = {"api/openapi.yaml": SPEC_WITH_FILES, "api/schemas/pet.yaml": PET_FILE}
    old, new = _two_commits(make_repo, files, {"api/schemas/pet.yaml": PET_FILE + "\n"})
    on = Settings.model_validate({"rest": {"specs": ["api/openapi.yaml"], "external_refs": True}})
    report = analyse(old, new, on)
    assert not report.checked
    assert "api/common.yaml not found" in (report.reason or "")


def test_the_same_bytes_at_both_refs_are_not_parsed_again() -> None:
    broken = "openapi: 3.0.3\npaths: {/a: [unclosed\n"
    moved = "openapi: 3.0.3\npaths:\n  /a:\n    $ref: '#/x'\n  /b:\n    $ref: paths/b.yaml\n"
    settings = Settings()
    old = MemorySnapshot({"openapi.yaml": broken})
    same = MemorySnapshot({"api/openapi.yaml": broken})
    report = analyse(old, same, settings)
    assert report.checked  # identical bytes: nothing can have changed
    assert [f.rule for f in report.findings] == ["document-moved"]
    with_file_ref = analyse(
        MemorySnapshot({"openapi.yaml": moved}), MemorySnapshot({"openapi.yaml": moved}), settings
    )
    assert not with_file_ref.checked  # another file may have changed: parsed, and refused
    changed = analyse(old, MemorySnapshot({"openapi.yaml": broken + "# edited\n"}), settings)
    assert not changed.checked
