"""Authentication and access errors: 401, 403, 404, 405, always the error payload."""

from __future__ import annotations

import pytest
from evaluator_support import (
    ALICE_TOKEN,
    CAROL_TOKEN,
    DAVE_TOKEN,
    ERIN_TOKEN,
    HISTORY,
    JAFFLE,
    Client,
    Running,
    uuid_of,
)

from release_safety.evaluator.fixture import token_hash


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer " + ALICE_TOKEN,
        "ApiKey",
        "ApiKey ldpat_short",
        "ApiKey ldpat_" + "A1" * 16,
        "ApiKey ldpat_" + "0" * 32,
        "apikey " + ALICE_TOKEN,
    ],
)
def test_missing_malformed_or_unknown_token_is_401(client: Client, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    response = client.get(HISTORY, token=None, headers=headers)
    assert response.status_code == 401
    assert response.json()["error"]["name"] == "AuthorizationError"


def test_expired_token_is_401(client: Client) -> None:
    response = client.get(HISTORY, token=ERIN_TOKEN)
    assert response.status_code == 401
    assert "expired" in response.json()["error"]["message"]


def test_every_operation_needs_a_token(client: Client) -> None:
    for path in ("/api/v1/org/users", "/api/v2/content", f"/api/v1/projects/{JAFFLE}/access"):
        assert client.get(path, token=None).status_code == 401


def test_project_without_access_is_403_and_unknown_project_404(client: Client) -> None:
    forbidden = client.get(HISTORY, token=CAROL_TOKEN)
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["name"] == "ForbiddenError"
    missing = client.get("/api/v2/projects/no-such-project/query/history")
    assert missing.status_code == 404
    assert missing.json()["error"]["name"] == "NotFoundError"


def test_auth_comes_before_validation(client: Client) -> None:
    assert client.get(HISTORY, token=None, params={"page": 0}).status_code == 401


def test_organization_admin_sees_every_project_but_only_own_runs(client: Client) -> None:
    results = client.history(token=DAVE_TOKEN, pageSize=100)
    assert [row["queryUuid"] for row in results["data"]] == [uuid_of("run", "dave-jaffle")]


def test_unknown_route_and_wrong_method_carry_the_error_payload(seeded: Running) -> None:
    import httpx

    with httpx.Client(base_url=seeded.url) as http:
        unknown = http.get("/api/v9/nothing")
        assert unknown.status_code == 404
        assert unknown.json()["error"]["name"] == "NotFoundError"
        wrong = http.delete(HISTORY)
        assert wrong.status_code == 405
        assert wrong.json() == {
            "status": "error",
            "error": {
                "name": "MethodNotAllowedError",
                "statusCode": 405,
                "message": "Method Not Allowed",
            },
        }


def test_tokens_are_stored_hashed(seeded: Running) -> None:
    conn = seeded.store.conn()
    dump = "\n".join(conn.iterdump())
    assert ALICE_TOKEN not in dump
    assert token_hash(ALICE_TOKEN) in dump
