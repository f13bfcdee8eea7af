"""The REST surface: a native OpenAPI (Swagger 2.0, OpenAPI 3.0 and 3.1) breaking-change analyser.

load (JSON / YAML, Swagger converted) → normalise (operations; schemas by the shared engine
`surfaces/jsonschema/`) → diff (typed deltas) → rules (a catalogue judging each delta by its
direction) → group (one line per change, with the operations it reaches); `documents.py` loads
and compares two documents (`diff-openapi`), `analyse.py` is the surface between two refs.
Nothing is imported here, so `diff-openapi` does not load the repository surface.
"""
