"""What the web app checks before a request reaches a game: who may ask, and in what form.

:class:`Guard` is the ASGI middleware in front of every route. It answers, with the API's
JSON error form and without calling the app:

- **400** when the ``Host`` header names a host this server was not started for. A page on
  another site can make a browser send requests to ``127.0.0.1`` through a DNS name it
  controls (DNS rebinding); such requests carry that name as their ``Host``. Allowed are
  ``localhost``, every loopback address, the address the server listens on, the names of
  ``--allow-host``, and, when it listens on every address (``0.0.0.0``, ``::``), any IP
  address written as such (a rebinding attack needs a name, not an address).
- **403** for a state-changing request (any method but GET, HEAD and OPTIONS) whose
  ``Content-Type`` is not ``application/json``, or whose ``Origin`` (or, without one, its
  ``Referer``) is not this server's own. A form or a ``text/plain`` fetch from another
  site is sent without a CORS preflight, so the browser alone does not stop it.
- **413** when ``Content-Length`` says the body is over :data:`MAX_BODY`, before any of it
  is read. A body sent without a length is counted as it is read (:func:`json_body`).

The rest of this module reads what the routes receive: a JSON body (its size, nesting and
numbers bounded, every field's type checked), integer query and path parameters in ASCII
digits only (``int()`` would read ``"٣"`` as 3), and a seed given as a number or a string.
"""

from __future__ import annotations

import ipaddress
import json
import re

from starlette.requests import Request
from starlette.responses import JSONResponse

from .errors import ApiError

#: the largest request body read, in bytes
MAX_BODY = 16_384
#: the deepest nesting of arrays and objects a JSON body may have
MAX_DEPTH = 16
#: the most digits a JSON number may have (a seed below 2**63 has at most 19)
MAX_DIGITS = 20
#: seeds a person may choose: 0 .. SEED_LIMIT - 1
SEED_LIMIT = 2**63
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with the
    # page's own POSTs, and the origin check below could not tell them from a sandboxed frame's
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_HOST = re.compile(r"(?:\[([0-9A-Fa-f:.]+)\]|([^\[\]:/@\s]+))(?::([0-9]{1,5}))?")
_ASCII_INT = re.compile(r"[0-9]{1,9}")  # fullmatch: "$" would let a trailing newline through


def error_response(status: int, message: str) -> JSONResponse:
    """The API's error form: ``{"error": message, "status": status}``."""
    return JSONResponse({"error": message, "status": status}, status_code=status, headers=SECURITY_HEADERS)


# --------------------------------------------------------------------------------------
# Hosts
# --------------------------------------------------------------------------------------
def _ip(name: str):
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``)."""
    if host.strip("[]").lower() == "localhost":
        return True
    ip = _ip(host.strip("[]"))
    return ip is not None and ip.is_loopback


def is_every_address(host: str) -> bool:
    """``0.0.0.0`` or ``::``: listening on every address of the machine."""
    ip = _ip(host.strip("[]"))
    return ip is not None and ip.is_unspecified


class HostRule:
    """Which ``Host`` header names a server listening on ``listen`` answers (see the module
    docstring); ``allowed`` are further names (``--allow-host``), e.g. a reverse proxy's."""

    def __init__(self, listen: str, allowed=()):
        self.listen = listen.strip("[]").lower()
        self.every = is_every_address(self.listen)
        self.allowed = {a.strip("[]").lower() for a in allowed}
        bad = sorted(a for a in self.allowed if not a or not _HOST.fullmatch(a))
        if bad:
            raise ValueError(f"--allow-host takes host names or addresses, got {bad}")

    def allows(self, host_header: str | None) -> bool:
        m = _HOST.fullmatch(host_header or "")
        if not m:
            return False
        name = (m.group(1) or m.group(2)).lower()
        if name in ("localhost", self.listen) or name in self.allowed:
            return True
        ip = _ip(name)
        return ip is not None and (ip.is_loopback or self.every)


# --------------------------------------------------------------------------------------
# The middleware
# --------------------------------------------------------------------------------------
def _origin_problem(headers: dict, host: str) -> str | None:
    """Why a state-changing request with these headers is not from this server's own page
    (None: it is)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return (f"a request that changes something must be sent as Content-Type: application/json, "
                f"got {kind or 'none'!r}")
    mine = (f"http://{host}", f"https://{host}")
    origin = headers.get("origin")
    if origin is not None:
        if origin not in mine:
            return (f"cross-site request refused: its Origin {origin[:80]!r} is not this server's ({mine[0]}); "
                    f"only the table's own page may change a game")
        return None
    referer = headers.get("referer")
    if referer is None:
        return ("cross-site request refused: it carries neither an Origin nor a Referer header, so it cannot be "
                "told from another site's; send Origin: " + mine[0])
    if not referer.startswith(tuple(m + "/" for m in mine)):
        return f"cross-site request refused: its Referer {referer[:80]!r} is not a page of this server ({mine[0]})"
    return None


class Guard:
    """ASGI middleware: the Host check, the cross-site check and the declared body size,
    in that order (see the module docstring)."""

    def __init__(self, app, hosts: HostRule, max_body: int = MAX_BODY):
        self.app = app
        self.hosts = hosts
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {}
        for k, v in scope.get("headers", []):
            headers.setdefault(k.decode("latin-1").lower(), v.decode("latin-1"))
        host = headers.get("host")
        problem = None
        if not self.hosts.allows(host):
            problem = (400, f"this server does not answer to the host {(host or '')[:80]!r}: it answers to localhost, "
                            "its loopback addresses, the address it listens on and the names given by --allow-host")
        elif scope["method"] not in SAFE_METHODS and (why := _origin_problem(headers, host)):
            problem = (403, why)
        else:
            length = headers.get("content-length")
            if length is not None and (not length.isascii() or not length.isdigit()):
                problem = (400, f"Content-Length must be a number of bytes, got {length[:40]!r}")
            elif length is not None and int(length) > self.max_body:
                problem = (413, f"the body is {int(length)} bytes; at most {self.max_body} bytes are accepted")
        if problem:
            return await error_response(*problem)(scope, receive, send)
        return await self.app(scope, receive, send)


# --------------------------------------------------------------------------------------
# Reading requests
# --------------------------------------------------------------------------------------
class _BadJson(ValueError):
    pass


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _BadJson(f"a number in the body has {len(text.lstrip('-'))} digits; at most {MAX_DIGITS} are read")
    return int(text)


def _no_constant(name: str):
    raise _BadJson(f"{name} is not a number JSON allows")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets inside strings
    do not count); one pass, so that a body of 16 KB of brackets costs milliseconds."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request's body, refused (413) as soon as more than ``limit`` bytes have come."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"the body passed {limit} bytes; at most {limit} bytes are accepted")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request, allowed: dict) -> dict:
    """The request's JSON object, every field checked against ``allowed`` (name -> type, or
    a tuple of types); ApiError naming what is wrong otherwise. A field sent as null counts
    as not sent."""
    raw = await read_body(request)
    example = json.dumps({k: (t if isinstance(t, type) else t[0]).__name__ for k, t in allowed.items()})
    if not raw.strip():
        body = {}
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "the body is not JSON (it is not UTF-8 text); send a JSON object such as "
                                + example) from None
        if json_depth(text) > MAX_DEPTH:
            raise ApiError(400, f"the body nests arrays or objects more than {MAX_DEPTH} deep; send a flat JSON "
                                f"object such as {example}")
        try:
            body = json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
        except _BadJson as e:
            raise ApiError(400, str(e)) from None
        except ValueError as e:
            raise ApiError(400, f"the body is not JSON ({e}); send a JSON object such as {example}") from None
    if not isinstance(body, dict):
        raise ApiError(400, f"the body must be a JSON object, got {type(body).__name__}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown field(s) {[u[:40] for u in unknown[:10]]}; allowed: {sorted(allowed)}")
    for key, kinds in allowed.items():
        value = body.get(key)
        if value is None:
            continue
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if isinstance(value, bool) or not isinstance(value, kinds):
            words = " or ".join("an integer" if k is int else "a string" for k in kinds)
            raise ApiError(422, f"field {key!r} must be {words}, got {json.dumps(value)[:60]}")
    return {k: v for k, v in body.items() if v is not None}


def in_range(name: str, value: int, lo: int, hi: int, what: str = "") -> int:
    """``value`` if ``lo <= value <= hi``, else 422 naming the field and the range."""
    if not lo <= value <= hi:
        raise ApiError(422, f"{name} must be {what or 'an integer'} {lo}..{hi}, got {value}")
    return value


def parse_seed(value) -> int:
    """A seed a person chose: a JSON integer, or a string of 1..19 ASCII decimal digits (what
    the page sends, since JavaScript numbers lose digits above 2**53), 0..2**63 - 1."""
    if isinstance(value, str):
        if not re.fullmatch(r"[0-9]{1,19}", value):
            raise ApiError(422, f"seed must be an integer 0..2**63 - 1, as a JSON number or a string of decimal "
                                f"digits, got {value[:40]!r}")
        value = int(value)
    if not 0 <= value < SEED_LIMIT:
        raise ApiError(422, f"seed must be an integer 0..2**63 - 1, as a JSON number or a string of decimal digits, "
                            f"got {str(value)[:40]}")
    return value


def int_param(request: Request, name: str, default: int | None = None, lo: int = 0, hi: int = 10**9) -> int:
    """Query parameter ``name`` as an integer ``lo..hi`` written in ASCII digits; 422 otherwise."""
    text = request.query_params.get(name)
    if text is None:
        if default is None:
            raise ApiError(422, f"the query parameter {name!r} is required (an integer {lo}..{hi})")
        return default
    if not _ASCII_INT.fullmatch(text):
        raise ApiError(422, f"the query parameter {name!r} must be an integer {lo}..{hi} in digits 0-9, "
                            f"got {text[:40]!r}")
    return in_range(f"the query parameter {name!r}", int(text), lo, hi)


def path_int(request: Request, name: str, what: str) -> int:
    """Path parameter ``name`` as a number in ASCII digits; 404 naming ``what`` otherwise."""
    text = request.path_params[name]
    if not _ASCII_INT.fullmatch(text):
        raise ApiError(404, f"no {what} {text[:40]!r}: {what}s are named by their number in digits 0-9")
    return int(text)


__all__ = ["Guard", "HostRule", "MAX_BODY", "SECURITY_HEADERS", "SEED_LIMIT", "error_response", "in_range",
           "int_param", "is_every_address", "is_loopback", "json_body", "json_depth", "parse_seed", "path_int",
           "read_body"]
