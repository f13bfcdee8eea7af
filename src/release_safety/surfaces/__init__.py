"""Surfaces: each diffs one kind of contract between two snapshots into a report of findings.

Every surface is a pure function of its inputs:

    analyse(old: Snapshot | None, new: Snapshot, settings: Settings) -> SurfaceReport

`old` is None for a first release (every file counts as added). A surface that cannot read its files
returns `contract.reports.not_checked(...)`; it never reports "not breaking" for what it did not
see.
"""
