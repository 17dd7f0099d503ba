#!/usr/bin/env python3
"""A capability sandbox for an AI agent's tool calls, speaking sbxfuzz/1.

Copy this file to start an adapter of your own. It has two halves:

  * a small protocol loop (SPEC §12): JSON-RPC 2.0, one message a line, on
    stdin (harness -> us) and stdout (us -> harness). Every effect goes
    through a `world/*` request back to the harness, which journals it, so
    sbxfuzz judges what the sandbox really did, not what it says it did;
  * the sandbox itself, `Sandbox.run`, following SPEC §5 step by step.

Run it under the harness with:
    sbxfuzz run --sut "exec:python3 examples/python/sandbox.py" --checks 10000

With --own-http, net_fetch resolves and connects by itself, with its own
HTTP client and address guard, instead of asking the harness with
world/fetch; the harness then watches its real connections from the network
namespace it runs the child in (SPEC §14), and the child refuses to start
anywhere else:
    sbxfuzz run --sut "exec:python3 examples/python/sandbox.py --own-http"

Python 3.11, standard library only. stdout is the protocol: log to stderr.
"""
import base64
import http.client
import json
import os
import posixpath
import re
import socket
import sys

MAX_I64, MIN_I64 = (1 << 63) - 1, -(1 << 63)
EXACT = 1 << 53  # JSON numbers are exact up to here; beyond, decimal strings


def log(*args):
    print("sandbox.py:", *args, file=sys.stderr, flush=True)


# --- Wire forms -------------------------------------------------------------
# Every path, data, host, name, input, body and output is a byte string: a
# JSON string when its bytes are valid UTF-8, else {"b64": "..."}. Inside the
# sandbox they are `bytes`, so NUL bytes and invalid UTF-8 reach the checks
# of §5 step 3 exactly as the agent sent them.

def from_wire(v):
    if isinstance(v, str):
        return v.encode("utf-8", "surrogatepass")  # a lone surrogate stays invalid
    if isinstance(v, dict) and isinstance(v.get("b64"), str):
        return base64.b64decode(v["b64"], validate=True)
    raise ValueError(f"not a byte string: {v!r:.60}")


def utf8(b):  # b as a str when valid UTF-8 (no surrogates, no overlongs), else None
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return None


def to_wire(b):
    s = utf8(b)
    return s if s is not None else {"b64": base64.b64encode(b).decode("ascii")}


def int_from_wire(v):  # a JSON number, or a decimal string beyond ±2^53
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ValueError(f"not an integer: {v!r:.60}")
    return int(v)


def int_to_wire(n):
    return n if -EXACT <= n <= EXACT else str(n)


# --- Protocol I/O -----------------------------------------------------------
_in, _out = sys.stdin.buffer, sys.stdout.buffer
_encode = json.JSONEncoder(separators=(",", ":")).encode  # built once; emits ASCII
_decode = json.JSONDecoder().decode
_next_id = 0


class ProtocolError(Exception):
    """The harness broke sbxfuzz/1: we exit, and it starts a fresh child."""


def send(msg):
    _out.write(_encode(msg).encode("ascii") + b"\n")
    _out.flush()  # the harness waits for this line: never leave it buffered


def read_message():
    line = _in.readline()
    if not line:
        raise EOFError
    return _decode(line.decode("utf-8"))


def world(method, params):
    """Ask the harness for one world call and wait for its answer. One op is
    in flight and the harness answers each request before it reads on, so a
    synchronous round trip is all we need."""
    global _next_id
    _next_id += 1
    send({"jsonrpc": "2.0", "id": _next_id, "method": method, "params": params})
    while True:
        try:
            msg = read_message()
        except EOFError:
            raise ProtocolError(f"stdin closed while {method} was pending") from None
        if "method" in msg:  # the harness never sends a request now
            raise ProtocolError(f"request {msg['method']!r} while {method} is pending")
        if msg.get("id") != _next_id:
            log("ignoring a response with id", msg.get("id"))
            continue
        if "error" in msg:
            raise ProtocolError(f"{method}: {msg['error']}")
        return msg["result"]


# --- Path rules (SPEC §4) ---------------------------------------------------

def has_traversal(p):
    # A ".." segment, splitting on "\" as well as "/": "/work/..hidden" is a
    # name, "/work\..\etc" is traversal. The `in` test is a cheap fast path.
    return b".." in p and b".." in p.replace(b"\\", b"/").split(b"/")


def clean(p):
    # Go's path.Clean. posixpath.normpath agrees except that POSIX lets it
    # keep exactly two leading slashes ("//work" stays "//work"); Go does not.
    c = posixpath.normpath(p)
    return c[1:] if c.startswith(b"//") else c


def prepare_roots(roots):
    # (root, root + "/") once per grant. The "/" after the root is what
    # keeps "/workshop/x" out of root "/work/".
    return [(c, c.rstrip(b"/") + b"/") for c in map(clean, roots)]


def under(p, roots):
    c = clean(p)
    return any(c == r or c.startswith(prefix) for r, prefix in roots)


# --- Internal addresses (SPEC §6) ------------------------------------------
# The table is written out as masks, on purpose: ipaddress.is_private and
# friends follow IANA registries that say more (and less) than the SPEC.

NAT64 = 0x0064FF9B << 64  # 64:ff9b::/96, shifted right by 32 bits
MAPPED = 0xFFFF           # ::ffff:0:0/96, shifted right by 32 bits
SIX_TO_FOUR = 0x2002      # 2002::/16, shifted right by 112 bits
NAT64_LOCAL = 0x0064FF9B0001  # 64:ff9b:1::/48, shifted right by 80 bits
TEREDO = 0x20010000       # 2001::/32, shifted right by 96 bits


def internal4(v):
    return (v >> 24 in (0, 10, 127)          # 0.0.0.0/8 (unspecified), RFC 1918, loopback
            or v & 0xFFC00000 == 0x64400000  # 100.64.0.0/10 shared address space
            or v >> 16 in (0xA9FE, 0xC0A8)   # 169.254/16 link-local, 192.168/16
            or v & 0xFFF00000 == 0xAC100000  # 172.16.0.0/12
            or v >> 8 == 0xC00000            # 192.0.0.0/24
            or v & 0xFFFE0000 == 0xC6120000  # 198.18.0.0/15 benchmarking
            or v >= 0xE0000000)              # multicast, 240.0.0.0/4, broadcast


def is_internal(addr):
    """True when a fetch to addr would stay inside the infrastructure.
    An address we cannot read is internal: fail closed."""
    a = addr[1:-1] if addr.startswith("[") and addr.endswith("]") else addr
    try:
        if ":" not in a:
            return internal4(int.from_bytes(socket.inet_pton(socket.AF_INET, a), "big"))
        v = int.from_bytes(socket.inet_pton(socket.AF_INET6, a.partition("%")[0]), "big")
    except (OSError, ValueError):
        return True
    if v >> 80 == NAT64_LOCAL or v >> 96 == TEREDO:  # internal whatever they carry
        return True
    if v >> 32 in (MAPPED, NAT64) or (v >> 32 == 0 and v > 1):  # mapped, NAT64, IPv4-compatible
        return internal4(v & 0xFFFFFFFF)
    if v >> 112 == SIX_TO_FOUR:  # 6to4: the IPv4 address in bits 16-47
        return internal4((v >> 80) & 0xFFFFFFFF)
    return (v <= 1                      # :: unspecified, ::1 loopback
            or v >> 121 == 0x7E         # fc00::/7 unique local
            or v >> 118 == 0x3FA        # fe80::/10 link-local
            or v >> 120 == 0xFF)        # ff00::/8 multicast


# --- Fetching with our own HTTP client (--own-http, SPEC §14) ---------------
# net_fetch resolves the name with the system resolver, judges the address
# and opens the connection itself, as an agent's fetch tool does. The
# harness sees all of it only because it runs us in a network namespace of
# its own, where its DNS server answers from the world and its listeners
# record every connection. Anywhere else these would be real requests on the
# machine's network: main refuses to start there.

# Seconds a connect or a read may take: under the harness's op timeout (2 s
# by default), so that a stuck fetch is our answer rather than a hang.
FETCH_TIMEOUT = 1.0
# From an output budget this large, the body is read whole rather than
# budget+1 bytes (enough to see it is over): a buffer that size is not made.
READ_ALL_FROM = 1 << 24

# What an HTTP/1.1 request carries byte for byte. Host: the bytes RFC 3986
# allows in a host (unreserved, sub-delims, "%", ":" and the brackets of an
# IPv6 literal), the set Go's HTTP server, the harness's, accepts. Request
# target: an absolute path of visible ASCII. Anything else would change on
# the way (IDNA, percent-encoding, "" sent as "/", a space ending the
# target) or be refused by the server; such an op is not sent (README.md).
SENDABLE_HOST = re.compile(rb"[A-Za-z0-9\-._~!$&'()*+,;=%:\[\]]+\Z")
SENDABLE_PATH = re.compile(rb"/[\x21-\x7e]*\Z")


def sendable(host, path):
    """Whether an HTTP request can name host and path exactly as given."""
    return SENDABLE_HOST.match(host) is not None and SENDABLE_PATH.match(path) is not None


def resolve_once(host):
    """The system resolver's first answer for host, as (family, sockaddr)
    for port 80, or None when it has none. "[x]" is the IPv6 literal x, as
    a URL writes it (§6: brackets allowed), and is never asked of DNS."""
    flags = 0
    if host.startswith(b"[") and host.endswith(b"]"):
        host, flags = host[1:-1], socket.AI_NUMERICHOST
    try:  # bytes: a str would be IDNA-encoded first, and that is another name
        infos = socket.getaddrinfo(host, 80, proto=socket.IPPROTO_TCP, flags=flags)
    except (OSError, UnicodeError, ValueError):
        return None
    return (infos[0][0], infos[0][4]) if infos else None


class PinnedConnection(http.client.HTTPConnection):
    """An HTTP connection to one socket address, never to a name: connect()
    cannot resolve again, so the address judged is the address dialled."""

    def __init__(self, family, sockaddr):
        super().__init__("pinned.invalid", sockaddr[1], timeout=FETCH_TIMEOUT)
        self.family, self.sockaddr = family, sockaddr

    def connect(self):
        self.sock = socket.socket(self.family, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.sockaddr)


def http_get(family, sockaddr, host, path, limit):
    """GET path from sockaddr with Host: host. The body of a 200 or a 302
    (limit+1 bytes at most, enough to see it is over the budget); None for
    a 404, for any other answer and for a failure, the last two logged.

    A 302 is never followed: its Location is another fetch, of a host and
    an address nobody checked. Its body is the answer (the world answers a
    redirect route with its URL there, as SPEC §5's one request a fetch
    returns it)."""
    conn = PinnedConnection(family, sockaddr)
    try:
        conn.putrequest("GET", path.decode("ascii"), skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host.decode("ascii"))
        conn.putheader("Connection", "close")
        conn.endheaders()
        resp = conn.getresponse()
        if resp.status in (200, 302):
            return resp.read() if limit >= READ_ALL_FROM else resp.read(limit + 1)
        if resp.status != 404:
            log(f"GET {path!r} Host {host!r} from {sockaddr[0]}: HTTP {resp.status}")
        return None
    except (OSError, http.client.HTTPException) as e:
        log(f"GET {path!r} Host {host!r} from {sockaddr[0]}: {type(e).__name__}: {e}")
        return None
    finally:
        conn.close()


# --- The sandbox (SPEC §3, §5) ---------------------------------------------
ARITY = {b"fs_read": 1, b"fs_write": 2, b"net_fetch": 2, b"tool": 2}
BAD_NAME = frozenset(b"/@?#")


def bad_root(r):
    return not r.startswith(b"/") or has_traversal(r) or b"\0" in r


def bad_name(n):  # empty, or white space, a control byte, "/", "@", "?", "#"
    return not n or any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F or ord(c) in BAD_NAME
                        for c in n.decode("utf-8", "replace"))


def bad_arg(a):
    # NUL bytes and invalid UTF-8 mean different things to different layers
    # (a C string stops at NUL), so they are refused before anyone looks.
    return b"\0" in a or not a.isascii() and utf8(a) is None


class Refused(Exception):
    """A soft denial (or not_found): this op is refused, the sandbox goes on."""


class Sandbox:
    def __init__(self, grant, own_http=False):
        # §3: the grant is read and checked once, and never changes after.
        # Keep the lists as given (sandbox/grant echoes them) and the roots
        # cleaned once for the checks.
        self.given = grant
        lists = {k: [from_wire(x) for x in grant.get(k) or ()]
                 for k in ("fs_read", "fs_write", "net", "tool")}
        b = grant.get("budgets") or {}
        self.max_ops, self.max_wall, self.max_output = (
            int_from_wire(b.get(k, 0)) for k in ("ops", "wall", "output"))
        for what, bad in (("fs_read", bad_root), ("fs_write", bad_root),
                          ("net", bad_name), ("tool", bad_name)):
            if wrong := [x for x in lists[what] if bad(x)]:
                raise ValueError(f"invalid grant: {what} {wrong[0]!r}")
        if min(self.max_ops, self.max_wall, self.max_output) < 0:
            raise ValueError("invalid grant: a negative budget")
        self.read_roots = prepare_roots(lists["fs_read"])
        self.write_roots = prepare_roots(lists["fs_write"])
        self.hosts = frozenset(lists["net"])   # exact, byte for byte
        self.tools = frozenset(lists["tool"])
        self.ops = self.wall = self.output = 0
        self.halted = None  # the hard kind that latched, once one has
        self.handlers = {b"fs_read": self.fs_read, b"fs_write": self.fs_write,
                         b"net_fetch": self.net_fetch, b"tool": self.tool}
        self.fetch = self.fetch_own if own_http else self.fetch_world
        # t0: the clock is read once, here; wall is measured from it.
        t = self.now()
        self.t0 = MAX_I64 if t is None else t

    def now(self):
        """The next tick, or None when it would pass 2^63-1 (§7)."""
        r = world("world/now", {})
        t = int_from_wire(r["tick"])
        if r.get("past") or t > MAX_I64:
            return None
        return max(t, MIN_I64)

    def usage(self):
        return {"ops": int_to_wire(self.ops), "wall": int_to_wire(self.wall),
                "output": int_to_wire(self.output)}

    def halt(self, kind):
        self.halted = kind
        return kind, True, b""

    def run(self, kind, args):
        # 1. Halt gate: a halted sandbox does nothing at all — no charge,
        #    no clock read, no world call.
        if self.halted:
            return self.halted, True, b""
        # 2. Charge before looking at the op, so that denied probes burn
        #    budget too. The clock is read only once the op budget passed.
        self.ops += 1
        if self.ops > self.max_ops:
            return self.halt("max_ops")
        t = self.now()
        if t is None:  # a tick past 2^63-1 is past every wall budget
            self.wall = MAX_I64
            return self.halt("max_wall")
        d = t - self.t0
        if d > MAX_I64:  # wall itself is an int64: too far is past any budget
            self.wall = MAX_I64
            return self.halt("max_wall")
        self.wall = max(d, MIN_I64)  # a clock run backwards: below every budget
        if self.wall > self.max_wall:
            return self.halt("max_wall")
        # 3. Dispatch: one of four kinds, the right arity, clean arguments.
        handler = self.handlers.get(kind)
        if handler is None:
            return "unknown_op", False, b""
        if len(args) != ARITY[kind] or any(map(bad_arg, args)):
            return "malformed_op", False, b""
        # 4. Check, then effect; a refusal at any check returns at once.
        try:
            return handler(*args)
        except Refused as r:
            return r.args[0], False, b""

    def confine(self, p, roots, denied):
        """Lexical checks first, then realpath, then the same roots again on
        the resolved path, which is the one we act on: a link inside a root
        may point anywhere (§13)."""
        if has_traversal(p):
            raise Refused("path_traversal")
        if not under(p, roots):  # never resolve a path we would refuse
            raise Refused(denied)
        ans = world("world/realpath", {"path": to_wire(p)})
        if ans.get("absent"):  # a link loop, or a chain longer than 40
            raise Refused("not_found")
        r = from_wire(ans["path"])
        if not under(r, roots):
            raise Refused(denied)
        return r

    def fs_read(self, p):
        r = self.confine(p, self.read_roots, "fs_read_denied")
        return self.produced(world("world/read", {"path": to_wire(r)}), "data")

    def fs_write(self, p, data):
        r = self.confine(p, self.write_roots, "fs_write_denied")
        world("world/write", {"path": to_wire(r), "data": to_wire(data)})
        return "ok", False, b""  # a write produces no data: no output charge

    def net_fetch(self, host, path):
        # Byte for byte: "API.internal" or "api.internal." is another host,
        # however the resolver would treat it.
        if host not in self.hosts:
            raise Refused("egress_denied")
        return self.fetch(host, path)

    def fetch_world(self, host, path):
        # Resolve exactly once and fetch from that very address: resolving
        # again to connect is the DNS-rebinding hole.
        w_host = to_wire(host)
        addr = world("world/resolve", {"host": w_host})["addr"]
        if is_internal(addr):
            raise Refused("egress_internal")
        ans = world("world/fetch", {"host": w_host, "addr": addr, "path": to_wire(path)})
        return self.produced(ans, "body")

    def fetch_own(self, host, path):
        # The same steps with our own resolver and HTTP client: resolve
        # once, judge that address, connect to it by number (handing the
        # name to an HTTP client would resolve it again).
        found = resolve_once(host)
        if found is None or is_internal(found[1][0]):
            raise Refused("egress_internal")  # no address we can vouch for: fail closed
        if not sendable(host, path):
            raise Refused("not_found")  # nothing HTTP can ask for there
        body = http_get(*found, host, path, self.max_output - self.output)
        if body is None:
            raise Refused("not_found")
        return self.charge(body)

    def tool(self, name, inp):
        if name not in self.tools:
            raise Refused("tool_denied")
        ans = world("world/call", {"name": to_wire(name), "input": to_wire(inp)})
        return self.produced(ans, "output")

    def produced(self, ans, field):
        if ans.get("absent"):
            raise Refused("not_found")
        return self.charge(from_wire(ans[field]))

    def charge(self, data):
        # 5. Output charge: bytes past the budget halt, and are not returned.
        if self.output + len(data) > self.max_output:
            return self.halt("max_output_bytes")
        self.output += len(data)
        return "ok", False, data


# --- The protocol loop ------------------------------------------------------

def reply(mid, result=None, error=None):
    if mid is not None:  # a request without an id is a notification: no answer
        send({"jsonrpc": "2.0", "id": mid, "error": error} if error
             else {"jsonrpc": "2.0", "id": mid, "result": result})


def main(argv):
    own_http = argv == ["--own-http"]
    if argv and not own_http:
        log("usage: sandbox.py [--own-http]")
        return 2
    if own_http and os.environ.get("SBXFUZZ_NETNS") != "1":
        log("--own-http fetches over the real network, so it runs only in sbxfuzz's"
            " network namespace (SBXFUZZ_NETNS=1 is not set): see README.md")
        return 2
    # Bound each lookup (glibc reads this when it first resolves). A process
    # this one starts inherits it, and a Go program then resolves through
    # glibc, which reads 2130706433 as an address: unset it for such a child.
    if own_http:
        os.environ.setdefault("RES_OPTIONS", "timeout:1 attempts:1")
    sandbox = None
    while True:
        try:
            msg = read_message()
        except EOFError:
            return 0  # the harness went away: nothing left to do
        method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method is None:
            log("ignoring a stray response, id", mid)
            continue
        try:
            if method == "sandbox/run":  # first: by far the most frequent
                op = params["op"]
                kind, hard, data = sandbox.run(
                    from_wire(op["kind"]), [from_wire(a) for a in op.get("args") or ()])
                reply(mid, {"kind": kind, "hard": hard, "data": to_wire(data),
                            "usage": sandbox.usage()})
            elif method == "sandbox/open":
                sandbox = None  # drop the previous one first, even if this fails
                sandbox = Sandbox(params["grant"], own_http)
                reply(mid, {})
            elif method == "sandbox/grant":
                reply(mid, sandbox.given)  # as given: we never change it
            elif method == "initialize":
                reply(mid, {"name": "python-example", "version": "0.1.0"})
            elif method == "shutdown":
                reply(mid, {})
                return 0
            else:
                log("no such method:", method)
                reply(mid, error={"code": -32601, "message": f"no method {method!r}"})
        except ProtocolError as e:
            log("protocol error:", e)
            return 1
        except Exception as e:  # answer, so that the harness shows why
            log(f"{method}: {type(e).__name__}: {e}")
            reply(mid, error={"code": -32602, "message": f"{type(e).__name__}: {e}"})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
