"""Fetching the index for real: a local HTTP server, the cache, offline answers and the pin."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path

import pytest
from upgrade_indexes import IndexServer, chained, index_doc

from release_safety.common.errors import CheckError, InputError
from release_safety.upgrade.indexsource import FetchPolicy, load_index

DOC = index_doc(chained(("1.0.0", True), ("1.1.0", True), ("1.2.0", False)), floor="1.0.0")
QUICK = FetchPolicy(timeout=2.0, attempts=3, backoff=0.01)


def versions(index_source: str, **options: object) -> list[str]:
    index = load_index(index_source, policy=QUICK, **options)  # type: ignore[arg-type]
    return [entry["version"] for entry in index["entries"]]


def test_fetches_validates_and_caches_with_the_etag(
    index_server: IndexServer, cache_folder: Path
) -> None:
    body = index_server.serve(DOC, etag='"abc"')
    assert versions(index_server.url) == ["1.0.0", "1.1.0", "1.2.0"]
    cached = [p for p in cache_folder.iterdir() if not p.name.endswith(".meta.json")]
    assert [p.read_bytes() for p in cached] == [body]
    meta = json.loads(next(cache_folder.glob("*.meta.json")).read_text())
    assert meta == {
        "url": index_server.url,
        "etag": '"abc"',
        "lastModified": None,
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def test_validators_of_another_body_are_not_sent(
    index_server: IndexServer, cache_folder: Path
) -> None:
    index_server.serve(DOC, etag='"abc"')
    versions(index_server.url)
    body_file = next(p for p in cache_folder.iterdir() if not p.name.endswith(".meta.json"))
    body_file.write_text(json.dumps(index_doc(DOC["entries"][:1])))
    assert versions(index_server.url) == ["1.0.0", "1.1.0", "1.2.0"]
    assert "if-none-match" not in index_server.served.requests[1]
    assert index_server.served.statuses == [200, 200]


def test_second_fetch_is_conditional_and_answered_from_the_cache(
    index_server: IndexServer,
) -> None:
    index_server.serve(DOC, etag='"abc"')
    versions(index_server.url)
    assert versions(index_server.url) == ["1.0.0", "1.1.0", "1.2.0"]
    assert index_server.served.statuses == [200, 304]
    assert index_server.served.requests[1]["if-none-match"] == '"abc"'
    assert "if-none-match" not in index_server.served.requests[0]


def test_last_modified_is_sent_back_as_if_modified_since(index_server: IndexServer) -> None:
    index_server.serve(DOC, etag=None)
    index_server.served.last_modified = "Wed, 21 Oct 2026 07:28:00 GMT"
    versions(index_server.url)
    versions(index_server.url)
    assert index_server.served.requests[1]["if-modified-since"] == "Wed, 21 Oct 2026 07:28:00 GMT"
    assert index_server.served.statuses == [200, 304]


def test_a_changed_index_replaces_the_cached_copy(index_server: IndexServer) -> None:
    index_server.serve(DOC, etag='"v1"')
    versions(index_server.url)
    newer = index_doc([*DOC["entries"], *chained(("1.3.0", True), first_previous="1.2.0")])
    index_server.serve(newer, etag='"v2"')
    assert versions(index_server.url)[-1] == "1.3.0"
    assert versions(index_server.url, offline=True)[-1] == "1.3.0"


def test_offline_answers_from_the_cache_without_a_request(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    versions(index_server.url)
    asked = len(index_server.served.requests)
    assert versions(index_server.url, offline=True) == ["1.0.0", "1.1.0", "1.2.0"]
    assert len(index_server.served.requests) == asked


def test_offline_without_a_cached_copy_cannot_check(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    with pytest.raises(CheckError, match="offline and no cached copy") as caught:
        versions(index_server.url, offline=True)
    assert caught.value.exit_code == 3
    assert index_server.served.requests == []


def test_pinned_digest_accepts_the_exact_bytes(index_server: IndexServer) -> None:
    body = index_server.serve(DOC)
    pin = hashlib.sha256(body).hexdigest().upper()
    assert versions(index_server.url, sha256=pin)[0] == "1.0.0"
    assert versions(index_server.url, sha256=pin, offline=True)[0] == "1.0.0"


def test_pinned_digest_rejects_other_bytes_and_does_not_cache_them(
    index_server: IndexServer, cache_folder: Path
) -> None:
    index_server.serve(DOC)
    with pytest.raises(CheckError, match="could not be validated: SHA-256 is"):
        versions(index_server.url, sha256="0" * 64)
    assert not cache_folder.exists() or list(cache_folder.iterdir()) == []


def test_pin_is_checked_on_the_cached_copy_after_a_304(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    versions(index_server.url)
    with pytest.raises(CheckError, match="SHA-256"):
        versions(index_server.url, sha256="f" * 64)
    assert index_server.served.statuses == [200, 304]


def test_malformed_pin_is_bad_input(index_server: IndexServer) -> None:
    with pytest.raises(InputError, match="not a SHA-256 digest"):
        versions(index_server.url, sha256="abc")
    assert index_server.served.requests == []


def test_transient_failures_are_retried(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    index_server.served.failures = 2
    assert versions(index_server.url)[0] == "1.0.0"
    assert index_server.served.statuses == [503, 503, 200]


def test_persistent_failure_gives_up_after_the_attempts(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    index_server.served.failures = 10
    with pytest.raises(CheckError, match=r"after 3 attempt\(s\): HTTP 503") as caught:
        versions(index_server.url)
    assert caught.value.exit_code == 3
    assert len(index_server.served.requests) == 3


def test_not_found_is_not_retried(index_server: IndexServer) -> None:
    with pytest.raises(CheckError, match="HTTP 404"):
        versions(index_server.url.replace("release-safety-index", "other"))
    assert index_server.served.statuses == [404]


def test_a_slow_server_times_out(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    index_server.served.delay = 1.0
    policy = FetchPolicy(timeout=0.2, attempts=2, backoff=0.01)
    with pytest.raises(CheckError, match="after 2 attempt"):
        load_index(index_server.url, policy=policy)


def test_refused_connection_cannot_check() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(CheckError, match="could not fetch the index"):
        versions(f"http://127.0.0.1:{port}/release-safety-index.json")


def test_invalid_index_is_not_validated_and_keeps_the_old_cache(
    index_server: IndexServer,
) -> None:
    index_server.serve(DOC, etag='"v1"')
    versions(index_server.url)
    broken = index_doc([{**DOC["entries"][0], "rollingUpdateSafe": "maybe"}])
    index_server.serve(broken, etag='"v2"')
    with pytest.raises(CheckError, match=r"could not be validated.*rollingUpdateSafe"):
        versions(index_server.url)
    assert versions(index_server.url, offline=True) == ["1.0.0", "1.1.0", "1.2.0"]


def test_not_json_at_the_url_cannot_be_validated(index_server: IndexServer) -> None:
    index_server.serve(b"<html>maintenance</html>")
    with pytest.raises(CheckError, match=r"could not be validated.*not valid JSON"):
        versions(index_server.url)


def test_local_file_is_read_and_validated(tmp_path: Path) -> None:
    path = tmp_path / "release-safety-index.json"
    path.write_text(json.dumps(DOC))
    assert versions(str(path)) == ["1.0.0", "1.1.0", "1.2.0"]
    assert versions(str(path), offline=True) == ["1.0.0", "1.1.0", "1.2.0"]
    pin = hashlib.sha256(path.read_bytes()).hexdigest()
    assert versions(str(path), sha256=pin)[2] == "1.2.0"


def test_missing_or_invalid_local_file_cannot_check(tmp_path: Path) -> None:
    with pytest.raises(CheckError, match="no such file"):
        versions(str(tmp_path / "absent.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"schemaVersion": "1"')
    with pytest.raises(CheckError, match="could not be validated"):
        versions(str(bad))


def test_a_cache_that_cannot_be_written_only_costs_a_refetch(
    index_server: IndexServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("RELEASE_SAFETY_CACHE_DIR", str(blocker))
    index_server.serve(DOC)
    assert versions(index_server.url) == ["1.0.0", "1.1.0", "1.2.0"]
    assert versions(index_server.url) == ["1.0.0", "1.1.0", "1.2.0"]
    assert index_server.served.statuses == [200, 200]
    with pytest.raises(CheckError, match="no cached copy"):
        versions(index_server.url, offline=True)


def test_redirects_are_followed(index_server: IndexServer) -> None:
    index_server.serve(DOC)
    moved = index_server.url.replace("release-safety-index.json", "moved")
    assert versions(moved) == ["1.0.0", "1.1.0", "1.2.0"]
    assert index_server.served.statuses == [301, 200]


@pytest.mark.parametrize("url", ["http://", "https://[::1"])
def test_malformed_url_is_bad_input(url: str) -> None:
    with pytest.raises(InputError, match="not a valid URL"):
        versions(url)
