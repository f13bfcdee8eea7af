from release_safety.contract.reports import Finding, SurfaceReport
from release_safety.release.artifact import api_surface, capped


def test_capped_lists_keep_uncapped_counts() -> None:
    findings = [
        Finding(rule="r", severity="breaking", surface="rest", message=f"GET /p{i:03} — removed")
        for i in range(60)
    ] + [Finding(rule="a", severity="advisory", surface="rest", message="GET /x — new")]
    block = api_surface(SurfaceReport(surface="rest", checked=True, findings=findings))
    assert block.breaking is True
    assert block.breakingCount == 60 and len(block.changes) == 51
    assert block.changes[-1] == "… and 10 more breaking change(s)"
    assert block.advisories == ["GET /x — new"] and block.advisoryCount == 1
    assert capped(["a"] * 50, "x") == ["a"] * 50


def test_not_checked_surface_is_never_not_breaking() -> None:
    block = api_surface(SurfaceReport(surface="mcp", checked=False, reason="bad json"))
    assert block.model_dump() == {
        "checked": False,
        "breaking": "unknown",
        "changes": [],
        "breakingCount": 0,
        "advisories": [],
        "advisoryCount": 0,
    }
