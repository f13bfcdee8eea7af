"""Multi-line single-quoted scalars at their key's indent (harbor's swagger): PyYAML accepts
them, rapidyaml refuses them as written; deepened, rapidyaml reads what PyYAML reads."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from release_safety.surfaces.rest import load
from release_safety.surfaces.rest.deepen import deepen_quoted

CONTINUED = """\
swagger: '2.0'
definitions:
  ProjectMetadata:
    properties:
      reuse_sys_cve_allowlist:
        type: string
        description: 'Whether this project reuse the system level allowlist.  The valid
        If it is set to "true" the project''s own
           allowlist, if any, will be ignored.'
        x-nullable: true
      list:
        - 'an item
        on two lines'
        - 'one line'
      note: |
        key: 'not a scalar, a block line
        kept as written'
      after: 'x'  # a comment
"""


def _pyyaml(text: str) -> Any:
    return load._string_keys(yaml.load(text, Loader=load._CoreLoader))


def test_continued_single_quoted_scalars_read_by_rapidyaml_as_pyyaml_reads_them() -> None:
    assert load._parse_fast(CONTINUED) is None  # rapidyaml refuses the text as written
    fast = load._read_fast(CONTINUED)
    assert fast is not None
    assert fast == _pyyaml(CONTINUED)
    properties = fast["definitions"]["ProjectMetadata"]["properties"]
    assert properties["reuse_sys_cve_allowlist"]["description"].endswith(
        "the project's own allowlist, if any, will be ignored."
    )
    assert properties["note"] == "key: 'not a scalar, a block line\nkept as written'\n"


def test_only_continuation_lines_are_deepened_and_block_scalar_lines_are_kept() -> None:
    deeper = deepen_quoted(CONTINUED)
    assert deeper is not None
    changed = [
        (old, new)
        for old, new in zip(CONTINUED.split("\n"), deeper.split("\n"), strict=True)
        if old != new
    ]
    assert changed == [
        (
            "        If it is set to \"true\" the project''s own",
            "          If it is set to \"true\" the project''s own",
        ),
        ("        on two lines'", "            on two lines'"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        'a:\n  b: "two\n  lines" \n',  # a double-quoted scalar running on
        "a:\n  b: [x,\n  'y]\n",  # a flow collection running on
        "a:\n  b: 'x' # it's\n",  # a quote after the closing one
        "a:\n  b: 'never closed\n",
        "a:\r\n  b: 'x\r\n  y'\r\n",
    ],
)
def test_lines_the_pass_does_not_follow_leave_the_text_to_pyyaml(text: str) -> None:
    assert deepen_quoted(text) is None


def test_a_text_rapidyaml_reads_is_not_touched() -> None:
    text = "a:\n  b: 'x\n    y'\n"
    assert deepen_quoted(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "a:\n  b: 'one\n  two'\n  c: 1\n",
        "a:\n  b: 'one\n\n  two  \n  three'\n",  # an empty line is a line break, spaces go
        "a:\n  - b: 'it''s\n    on two'\n    c: [x, 'y']\n",
        "a:\n  b: &x 'one\n  two'\n",
        "a:\n  b: 'one\n  two' # it is\n  c: |\n    d: 'x\n  e: 'f\n  g'\n",
        "- 'one\n  two'\n- 'three\n four'\n",
    ],
)
def test_deepened_texts_read_as_pyyaml_reads_them(text: str) -> None:
    fast = load._read_fast(text)
    if fast is not None:
        assert fast == _pyyaml(text)
    assert load._parse_text(text) == _pyyaml(text)
