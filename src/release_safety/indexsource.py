"""Where the index comes from: a local file or an http(s) URL, cached, optionally pinned.

The I/O edge of the upgrade check. A URL is fetched with a timeout and a few retries with
backoff; a good answer is cached in the user cache folder (`RELEASE_SAFETY_CACHE_DIR` overrides
it) with its ETag / Last-Modified so the next fetch can be a conditional one; `offline` answers
from that cache alone. `--index-sha256` pins the exact bytes. Whatever the source, the bytes are
validated as an index before any verdict; every failure here is a CheckError (exit 3), so "could
not check" never reads as "unsafe".
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from release_safety import __version__
from release_safety.cachedir import cache_dir
from release_safety.errors import CheckError, InputError
from release_safety.index import parse_index
from release_safety.jsonio import dumps, write_atomic
from release_safety.model import Index

if TYPE_CHECKING:
    import httpx

RETRIED_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")


@dataclass(frozen=True)
class FetchPolicy:
    """How patient a fetch is: seconds per request, attempts in all, first backoff (doubled)."""

    timeout: float = 10.0
    attempts: int = 3
    backoff: float = 0.5


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def check_pin(sha256: str | None) -> str | None:
    """The pin in lower case; anything but 64 hex digits is bad input."""
    if sha256 is None:
        return None
    if not _SHA256.match(sha256):
        raise InputError(f"--index-sha256 {sha256!r}: not a SHA-256 digest (64 hex digits)")
    return sha256.lower()


def load_index(
    source: str,
    *,
    offline: bool = False,
    sha256: str | None = None,
    policy: FetchPolicy = FetchPolicy(),
) -> Index:
    """The validated index at `source` (a path or an http(s) URL)."""
    pin = check_pin(sha256)
    if not is_url(source):
        return _validated(_read_file(Path(source)), source, pin)
    cache = _Cache(cache_dir(), source)
    if offline:
        cached = cache.body()
        if cached is None:
            raise CheckError(f"{source}: offline and no cached copy (run once without --offline)")
        return _validated(cached, source, pin)
    fetched = _fetch(source, cache, policy)
    index = _validated(fetched.body, source, pin)
    if fetched.fresh:
        cache.store(fetched.body, fetched.etag, fetched.last_modified)
    return index


def _validated(body: bytes, where: str, pin: str | None) -> Index:
    if pin is not None:
        actual = hashlib.sha256(body).hexdigest()
        if actual != pin:
            raise CheckError(f"{where}: could not be validated: SHA-256 is {actual}, pinned {pin}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckError(f"{where}: could not be validated: not UTF-8 text") from exc
    try:
        return parse_index(text, where)
    except InputError as exc:
        raise CheckError(f"could not be validated: {exc.message}") from exc


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise CheckError(f"{path}: could not read the index: no such file") from exc
    except OSError as exc:
        raise CheckError(f"{path}: could not read the index: {exc.strerror or exc}") from exc


class _Cache:
    """One URL's cached body and validators, two files named for a hash of the URL."""

    def __init__(self, folder: Path, url: str) -> None:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()[:24]
        self.url = url
        self.body_path = folder / f"index-{key}.json"
        self.meta_path = folder / f"index-{key}.meta.json"

    def body(self) -> bytes | None:
        try:
            return self.body_path.read_bytes()
        except OSError:
            return None

    def validators(self) -> dict[str, str]:
        """Conditional-request headers for the cached copy; none when there is no usable copy."""
        body = self.body()
        if body is None:
            return {}
        try:
            meta = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(meta, dict) or meta.get("url") != self.url:
            return {}
        if meta.get("sha256") != hashlib.sha256(body).hexdigest():
            return {}  # body and validators from different fetches: ask for the whole index
        headers = {}
        if isinstance(meta.get("etag"), str):
            headers["If-None-Match"] = meta["etag"]
        if isinstance(meta.get("lastModified"), str):
            headers["If-Modified-Since"] = meta["lastModified"]
        return headers

    def store(self, body: bytes, etag: str | None, last_modified: str | None) -> None:
        """Keep a validated answer; a cache that cannot be written only costs a refetch."""
        meta = {
            "url": self.url,
            "etag": etag,
            "lastModified": last_modified,
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        try:
            write_atomic(self.body_path, body.decode("utf-8"))
            write_atomic(self.meta_path, dumps(meta))
        except CheckError:
            return


@dataclass(frozen=True)
class _Fetched:
    body: bytes
    fresh: bool
    etag: str | None = None
    last_modified: str | None = None


def _fetch(url: str, cache: _Cache, policy: FetchPolicy) -> _Fetched:
    """The index bytes from `url`, or the cached copy when the server answers 304."""
    import httpx  # deferred: only URL sources pay for the HTTP client's import

    conditional = cache.validators()
    headers = {"User-Agent": f"release-safety/{__version__}", **conditional}
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise InputError(f"--index {url!r}: not a valid URL: {exc}") from exc
    if not target.host:
        raise InputError(f"--index {url!r}: not a valid URL: no host")
    with httpx.Client(timeout=policy.timeout, follow_redirects=True) as client:
        response = _get_with_retries(client, target, headers, policy, url)
    if response.status_code == 304 and conditional:
        cached = cache.body()
        if cached is not None:
            return _Fetched(cached, fresh=False)
    if response.status_code != 200:
        raise CheckError(f"{url}: could not fetch the index: HTTP {response.status_code}")
    return _Fetched(
        response.content,
        fresh=True,
        etag=response.headers.get("etag"),
        last_modified=response.headers.get("last-modified"),
    )


def _get_with_retries(
    client: httpx.Client,
    target: httpx.URL,
    headers: dict[str, str],
    policy: FetchPolicy,
    url: str,
) -> httpx.Response:
    import httpx

    failure = ""
    for attempt in range(max(policy.attempts, 1)):
        if attempt:
            time.sleep(policy.backoff * 2 ** (attempt - 1))
        try:
            response = client.get(target, headers=headers)
        except httpx.TransportError as exc:
            failure = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            continue
        if response.status_code not in RETRIED_STATUSES:
            return response
        failure = f"HTTP {response.status_code}"
    attempts = max(policy.attempts, 1)
    raise CheckError(f"{url}: could not fetch the index after {attempts} attempt(s): {failure}")
