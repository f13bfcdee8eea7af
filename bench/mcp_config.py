"""Benchmark the MCP and config surfaces on synthetic snapshots held in memory.

Usage: python bench/mcp_config.py [--tools 80] [--files 400]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from release_safety.git.snapshot import MemorySnapshot
from release_safety.settings.model import ConfigSettings, Settings
from release_safety.surfaces import config, mcp


def _schema(seed: int, depth: int) -> dict[str, Any]:
    props: dict[str, Any] = {f"p{i}": {"type": "string", "maxLength": 10 + i} for i in range(8)}
    props["mode"] = {"enum": ["a", "b", "c"]}
    props["items"] = {"type": "array", "items": {"$ref": "#/$defs/Row"}}
    if depth:
        props["nested"] = _schema(seed, depth - 1)
        props["either"] = {"anyOf": [_schema(seed + 1, depth - 1), {"type": "null"}]}
    return {"type": "object", "properties": props, "required": ["p0"]}


def _tools(count: int, change: bool) -> str:
    tools = []
    for i in range(count):
        schema = _schema(i, 3)
        schema["$defs"] = {"Row": {"type": "object", "properties": {"id": {"type": "integer"}}}}
        if change and i % 10 == 0:
            schema["properties"]["p1"]["maxLength"] = 5
        tools.append({"name": f"tool_{i:03}", "inputSchema": schema, "outputSchema": None})
    return json.dumps({"schemaVersion": "1", "tools": tools}, indent=2, sort_keys=True)


def _files(count: int, change: bool) -> dict[str, str]:
    files = {}
    for i in range(count):
        default = "60" if change and i % 50 == 0 else "30"
        files[f"src/f{i}.ts"] = "".join(
            f"export const v{j} = Number(process.env.F{i}_V{j}) || {default};\n" for j in range(20)
        )
    return files


def _time(label: str, run: Any) -> None:
    start = time.perf_counter()
    result = run()
    elapsed = time.perf_counter() - start
    print(f"{label}: {elapsed * 1000:.0f} ms, {len(result.findings)} findings")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=80)
    parser.add_argument("--files", type=int, default=400)
    args = parser.parse_args()
    old = MemorySnapshot({"mcp-tools.json": _tools(args.tools, False)}, ref="old")
    new = MemorySnapshot({"mcp-tools.json": _tools(args.tools, True)}, ref="new")
    size = len(new.read("mcp-tools.json")) // 1024
    _time(
        f"mcp, {args.tools} tools, {size} KiB snapshot", lambda: mcp.analyse(old, new, Settings())
    )
    settings = Settings(config=ConfigSettings(sources=("src/*.ts",)))
    old = MemorySnapshot(_files(args.files, False), ref="old")
    new = MemorySnapshot(_files(args.files, True), ref="new")
    label = f"config, {args.files} TS files x 20 reads"
    _time(f"{label}, cold", lambda: config.analyse(old, new, settings))
    _time(f"{label}, warm (memoised by blob id)", lambda: config.analyse(old, new, settings))


if __name__ == "__main__":
    main()
