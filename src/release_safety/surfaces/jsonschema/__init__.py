"""One JSON-Schema engine for the REST and MCP surfaces: it describes, the surfaces judge.

build (`$ref`s, `allOf`, dialects and spec errors into `Schema`) → diff (two schemas into typed
`Delta`s: kind, direction, path, before and after) → judge (each surface's `Catalogue` of rules
decides what a delta means for its clients; a kind nobody judges is `unknown`, never neutral).
"""
