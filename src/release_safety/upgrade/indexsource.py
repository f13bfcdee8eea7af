"""Where the index comes from: a local file or an http(s) URL, cached, optionally pinned.

The I/O edge of the upgrade check. A URL is fetched within one total deadline (whatever the
server's pace: slow headers and slow bodies included), each request with its own timeout, a few
attempts with backoff (a `Retry-After` is honoured within the deadline), and the body capped at
`FetchPolicy.max_bytes` after decoding (a gzip bomb stops at the cap). Redirects stay on the
URL's origin unless the bytes are pinned with `--index-sha256`. A good answer is cached in the
user cache folder (`RELEASE_SAFETY_CACHE_DIR` overrides it) with its ETag / Last-Modified so the
next fetch can be a conditional one; `offline` answers from that cache alone. Whatever the
source, the bytes are validated as an index before any verdict; every failure here is a
CheckError (exit 3), so "could not check" never reads as "unsafe".
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, NamedTuple

from release_safety import __version__
from release_safety.common.errors import CheckError, InputError
from release_safety.common.jsonio import dumps, write_atomic
from release_safety.common.localfile import read_regular
from release_safety.contract.index import IndexData, index_data

if TYPE_CHECKING:
    import zlib
    from pathlib import Path

    import httpx

# A local index needs none of what fetching a URL does: hashlib, threading, zlib, pathlib, the
# cache folder and the HTTP client are imported where a URL (or a pin) needs them.

RETRIED_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


class FetchPolicy(NamedTuple):
    """How patient a fetch is: seconds per request phase (connect, each read), attempts in all,
    first backoff (doubled), the total deadline of the whole fetch, and the most bytes a body
    may decode to."""

    timeout: float = 10.0
    attempts: int = 3
    backoff: float = 0.5
    deadline: float = 30.0
    max_bytes: int = 64 * 1024 * 1024


DEFAULT_POLICY = FetchPolicy()


def is_url(source: str) -> bool:
    """True for an http(s) URL, whatever the case of its scheme; another scheme is bad input."""
    found = _SCHEME.match(source)
    if found is None:
        return False
    if found.group(1).lower() not in ("http", "https"):
        raise InputError(f"--index {source!r}: unsupported URL scheme (http or https)")
    return True


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
    policy: FetchPolicy = DEFAULT_POLICY,
) -> IndexData:
    """The validated index at `source` (a path or an http(s) URL)."""
    pin = check_pin(sha256)
    if not is_url(source):
        return _validated(_read_file(source, policy.max_bytes), source, pin)
    from release_safety.common.cachedir import cache_dir

    cache = _Cache(cache_dir(), source)
    if offline:
        cached = cache.body()
        if cached is None:
            raise CheckError(f"{source}: offline and no cached copy (run once without --offline)")
        return _validated(cached, source, pin)
    fetched = _fetch_within_deadline(source, cache, policy, pinned=pin is not None)
    index = _validated(fetched.body, source, pin)
    if fetched.fresh:
        cache.store(fetched.body, fetched.etag, fetched.last_modified)
    return index


def _validated(body: bytes, where: str, pin: str | None) -> IndexData:
    if pin is not None:
        actual = _sha256(body)
        if actual != pin:
            raise CheckError(f"{where}: could not be validated: SHA-256 is {actual}, pinned {pin}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckError(f"{where}: could not be validated: not UTF-8 text") from exc
    try:
        return index_data(text, where)
    except InputError as exc:
        raise CheckError(f"could not be validated: {exc.message}") from exc


def _sha256(body: bytes) -> str:
    import hashlib

    return hashlib.sha256(body).hexdigest()


def _read_file(path: str, max_bytes: int) -> bytes:
    try:
        return read_regular(path, max_bytes)
    except FileNotFoundError as exc:
        raise CheckError(
            f"{path}: could not read the index: no such file (make one with `release-safety "
            "backfill --index FILE` and `release-safety index update` at each release, or give "
            "--index PATH|URL)"
        ) from exc
    except OSError as exc:
        raise CheckError(f"{path}: could not read the index: {exc.strerror or exc}") from exc
    except InputError as exc:
        raise CheckError(f"could not read the index: {exc.message}") from exc


class _Cache:
    """One URL's cached body and validators, two files named for a hash of the URL."""

    def __init__(self, folder: Path, url: str) -> None:
        key = _sha256(url.encode("utf-8"))[:24]
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
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(meta, dict) or meta.get("url") != self.url:
            return {}
        if meta.get("sha256") != _sha256(body):
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
            "sha256": _sha256(body),
        }
        try:
            write_atomic(self.body_path, body.decode("utf-8"))
            write_atomic(self.meta_path, dumps(meta))
        except CheckError:
            return


class _Fetched(NamedTuple):
    body: bytes
    fresh: bool
    etag: str | None = None
    last_modified: str | None = None


def _fetch_within_deadline(url: str, cache: _Cache, policy: FetchPolicy, pinned: bool) -> _Fetched:
    """`_fetch` in a helper thread, given up at the deadline whatever the server is doing (a
    server sending its headers a byte at a time never trips a per-read timeout)."""
    import threading

    deadline = time.monotonic() + policy.deadline
    outcome: list[_Fetched | BaseException] = []

    def work() -> None:
        try:
            outcome.append(_fetch(url, cache, policy, pinned, deadline))
        except BaseException as exc:  # handed to the caller's thread
            outcome.append(exc)

    worker = threading.Thread(target=work, name="release-safety-index-fetch", daemon=True)
    worker.start()
    worker.join(policy.deadline)
    if not outcome:
        raise CheckError(f"{url}: could not fetch the index within {policy.deadline:g} s")
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _remaining(deadline: float, url: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise CheckError(f"{url}: could not fetch the index within the deadline")
    return left


def _fetch(url: str, cache: _Cache, policy: FetchPolicy, pinned: bool, deadline: float) -> _Fetched:
    """The index bytes from `url`, or the cached copy when the server answers 304."""
    import httpx  # deferred: only URL sources pay for the HTTP client's import

    conditional = cache.validators()
    headers = {
        "User-Agent": f"release-safety/{__version__}",
        "Accept-Encoding": "gzip",
        **conditional,
    }
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise InputError(f"--index {url!r}: not a valid URL: {exc}") from exc
    if not target.host:
        raise InputError(f"--index {url!r}: not a valid URL: no host")
    failure, wait = "", 0.0
    with httpx.Client(follow_redirects=False) as client:
        for attempt in range(max(policy.attempts, 1)):
            if attempt:
                _pause(wait or policy.backoff * 2 ** (attempt - 1), deadline, url, failure)
            try:
                fetched, wait, failure = _attempt(
                    client, target, headers, policy, pinned, deadline, url
                )
            except httpx.TransportError as exc:
                failure = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                wait = 0.0
                continue
            except httpx.HTTPError as exc:  # anything else the client refuses: no retry
                raise CheckError(f"{url}: could not fetch the index: {exc}") from exc
            if fetched is None:
                continue
            if fetched.fresh:
                return fetched
            cached = cache.body() if conditional else None
            if cached is None:
                raise CheckError(f"{url}: could not fetch the index: HTTP 304")
            return _Fetched(cached, fresh=False)
    attempts = max(policy.attempts, 1)
    raise CheckError(f"{url}: could not fetch the index after {attempts} attempt(s): {failure}")


def _pause(seconds: float, deadline: float, url: str, failure: str) -> None:
    left = _remaining(deadline, url)
    if seconds >= left:
        raise CheckError(
            f"{url}: could not fetch the index: {failure}; the next attempt ({seconds:g} s "
            "away) would pass the deadline"
        )
    time.sleep(seconds)


def _attempt(
    client: httpx.Client,
    target: httpx.URL,
    headers: dict[str, str],
    policy: FetchPolicy,
    pinned: bool,
    deadline: float,
    url: str,
) -> tuple[_Fetched | None, float, str]:
    """One attempt, redirects followed: the answer, or None with the wait the server asked for
    (0 for the default backoff) and why it is to be retried."""
    import httpx

    for _ in range(MAX_REDIRECTS + 1):
        timeout = httpx.Timeout(min(policy.timeout, _remaining(deadline, url)))
        with client.stream("GET", target, headers=headers, timeout=timeout) as response:
            status = response.status_code
            if status in REDIRECT_STATUSES and "location" in response.headers:
                target = _redirect(target, response.headers["location"], pinned, url)
                continue
            if status in RETRIED_STATUSES:
                return None, _retry_after(response.headers.get("retry-after")), f"HTTP {status}"
            if status == 304:
                return _Fetched(b"", fresh=False), 0.0, ""
            if status != 200:
                raise CheckError(f"{url}: could not fetch the index: HTTP {status}")
            body = _read_body(response, policy.max_bytes, deadline, url)
            return (
                _Fetched(
                    body,
                    fresh=True,
                    etag=response.headers.get("etag"),
                    last_modified=response.headers.get("last-modified"),
                ),
                0.0,
                "",
            )
    raise CheckError(f"{url}: could not fetch the index: more than {MAX_REDIRECTS} redirects")


def _redirect(current: httpx.URL, location: str, pinned: bool, url: str) -> httpx.URL:
    """The redirect's target; another origin (scheme, host, port) only for pinned bytes."""
    import httpx

    try:
        target = current.join(location)
    except httpx.InvalidURL as exc:
        raise CheckError(f"{url}: could not fetch the index: bad redirect: {exc}") from exc
    same = (target.scheme, target.host, target.port) == (current.scheme, current.host, current.port)
    if target.scheme not in ("http", "https") or not (same or pinned):
        raise CheckError(
            f"{url}: could not fetch the index: redirected to another origin ({target}); "
            "pin the index with --index-sha256 to follow it"
        )
    return target


def _retry_after(value: str | None) -> float:
    """Seconds a `Retry-After` header asks for (a number or an HTTP date); 0 when absent."""
    if not value:
        return 0.0
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # deferred: rarely needed, slow to import

    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 0.0
    return max(moment.timestamp() - time.time(), 0.0)


def _read_body(response: httpx.Response, max_bytes: int, deadline: float, url: str) -> bytes:
    """The body, decoded (gzip, deflate) by hand so it stops at `max_bytes` whatever it is."""
    import zlib

    too_big = f"{url}: could not fetch the index: larger than {max_bytes:,} bytes"
    declared = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if declared.isdigit() and encoding == "identity" and int(declared) > max_bytes:
        raise CheckError(too_big)
    decoder = _decoder(encoding, url)
    chunks: list[bytes] = []
    size = 0
    for raw in response.iter_raw():
        _remaining(deadline, url)
        pending = raw
        while pending:
            if decoder is None:
                piece, pending = pending, b""
            else:
                try:
                    piece = decoder.decompress(pending, max_bytes + 1 - size)
                except zlib.error as exc:
                    raise CheckError(f"{url}: could not decode the index: {exc}") from exc
                pending = decoder.unconsumed_tail
            size += len(piece)
            if size > max_bytes:
                raise CheckError(too_big)
            chunks.append(piece)
    return b"".join(chunks)


def _decoder(encoding: str, url: str) -> zlib._Decompress | None:
    import zlib

    if encoding in ("identity", ""):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise CheckError(f"{url}: could not fetch the index: unsupported Content-Encoding {encoding}")
