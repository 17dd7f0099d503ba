#!/usr/bin/env python3
"""guardmcp.py CASE [--allow-file FILE]: an MCP fetch server over stdio
(Python 3 stdlib only) whose one tool, fetch {url}, guards egress the
way CASE says, as real Python SSRF guards are written.

Defects (each a real violation of SPEC section 6 or 14):
  v4check    checks socket.gethostbyname's answer (IPv4 only) and lets
             the fetch through when it has none; the HTTP client then
             looks the name up again for any family
  recheck    checks every answer of one getaddrinfo, then lets the HTTP
             client look the name up again to connect
  isprivate  one lookup, pinned, refused when ipaddress calls it private,
             loopback, link-local, reserved, multicast or unspecified
             (Python 3.11: misses the shared address space, most of the
             IETF protocol assignments block, and what 6to4 carries)
  isglobal   one lookup, pinned, refused unless ipaddress calls it global
             (Python 3.11: NAT64, 6to4, IPv4-compatible and multicast pass)
  blocklist  a list of strings and prefixes on the URL's host, no lookup
  casefold   a correct address check; the allow-list compared with the
             host lower-cased and its trailing dot stripped
  checkcache a correct check whose verdict is kept per name for ever; the
             HTTP client looks the name up at each fetch
  redirname  a correct check of the first URL (pinned); redirects
             followed, each Location checked against the allow-list by
             name only and looked up by the HTTP client
  sixtofour  SPEC section 6's ranges, but every embedding prefix (6to4
             too) decoded from the last 32 bits, as for NAT64
  regexdot   a correct address check; the allow-list a list of regular
             expressions, each granted host taken as one unescaped
             (re.fullmatch): its dots match any character
  afterconnect  connects and fetches first, then looks the host up and
             checks that answer: the address used was never checked
Correct guards (no finding is due):
  pin        one getaddrinfo, every answer checked (SPEC section 6),
             the first connected to, redirects not followed
  perfamily  one getaddrinfo for AF_INET and another for AF_INET6, every
             answer of both checked, the first connected to
  followpin  pin, following redirects: each hop's host on the allow-list,
             looked up, every answer checked and the first connected to
  ownresolver pin, the name looked up by a DNS client of its own (A, then
             AAAA) at a fixed public resolver, as a guard built on a DNS
             library set to a public resolver does
  dnscache   pin, each name's answers kept for ever (a DNS cache that
             ignores the TTL): never a lookup twice, never an address
             unchecked
"""

import http.client
import ipaddress
import json
import re
import socket
import sys
import urllib.parse

CASE = sys.argv[1] if len(sys.argv) > 1 else "pin"
ALLOW = None
if "--allow-file" in sys.argv:
    with open(sys.argv[sys.argv.index("--allow-file") + 1], encoding="utf-8", errors="surrogateescape") as f:
        ALLOW = [line.rstrip("\n") for line in f if line.rstrip("\n")]

N = ipaddress.ip_network
V4_INTERNAL = [N(s) for s in ("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
                              "172.16.0.0/12", "192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4",
                              "240.0.0.0/4")]
V6_INTERNAL = [N(s) for s in ("::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b:1::/48", "2001::/32")]


def carried(a):
    """The IPv4 address an IPv6 address embeds (SPEC section 6), or None."""
    v = int(a)
    if a in N("::ffff:0:0/96") or (a in N("::/96") and v > 1) or a in N("64:ff9b::/96"):
        return ipaddress.IPv4Address(v & 0xffffffff)
    if a in N("2002::/16"):
        return ipaddress.IPv4Address((v >> 80) & 0xffffffff)
    return None


def carried_last32(a):
    """carried's mistake: any embedding prefix read from the last 32 bits."""
    if any(a in N(p) for p in ("::ffff:0:0/96", "::/96", "64:ff9b::/96", "2002::/16")) and int(a) > 1:
        return ipaddress.IPv4Address(int(a) & 0xffffffff)
    return None


def internal(s):
    """SPEC section 6's internal, for an address as getaddrinfo gives it."""
    a = ipaddress.ip_address(s.split("%")[0])
    if a.version == 6:
        c = carried_last32(a) if CASE == "sixtofour" else carried(a)
        if c is None:
            return any(a in n for n in V6_INTERNAL)
        a = c
    return any(a in n for n in V4_INTERNAL)


def py_private(s):
    a = ipaddress.ip_address(s.split("%")[0])
    return a.is_private or a.is_loopback or a.is_link_local or a.is_reserved or a.is_multicast or a.is_unspecified


def py_not_global(s):
    return not ipaddress.ip_address(s.split("%")[0]).is_global


class Refused(Exception):
    pass


def lookup(host, family=socket.AF_UNSPEC):
    try:
        infos = socket.getaddrinfo(host, 80, family, socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise Refused("cannot resolve %s: %s" % (host, e))
    return [i[4][0] for i in infos]


def allowed(host):
    if ALLOW is None:
        return True
    if CASE == "regexdot":
        for h in ALLOW:
            try:
                if re.fullmatch(h, host):
                    return True
            except re.error:
                pass
        return False
    if CASE == "casefold":
        return host.lower().rstrip(".") in [h.lower().rstrip(".") for h in ALLOW]
    return host in ALLOW or ("[" + host + "]") in ALLOW


def get(host, addr, path):
    """GET path from addr (None: let http.client look host up), Host: host."""
    conn = http.client.HTTPConnection(addr if addr else host, 80, timeout=5)
    hosthdr = "[" + host + "]" if ":" in host else host
    conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    conn.putheader("Host", hosthdr)
    conn.endheaders()
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, r.getheader("Location"), body


def checked(addrs, judge=internal):
    for a in addrs:
        if judge(a):
            raise Refused("internal address %s" % a)
    return addrs[0]


def own_lookup(host):
    """A and AAAA answers of host from a public resolver, over UDP."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    labels = host.rstrip(".").split(".")
    if any(not l or len(l) > 63 for l in labels):
        raise Refused("cannot resolve %s" % host)
    qname = b"".join(bytes([len(l)]) + l.encode("ascii", "replace") for l in labels) + b"\0"
    out = []
    for qtype, fam, size in ((1, socket.AF_INET, 4), (28, socket.AF_INET6, 16)):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(1)
        try:
            s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + qname + bytes([0, qtype, 0, 1]), ("8.8.8.8", 53))
            m = s.recv(4096)
        except OSError:
            continue
        finally:
            s.close()
        an, i = int.from_bytes(m[6:8], "big"), 12 + len(qname) + 4
        for _ in range(an):
            if m[i] & 0xc0 == 0xc0:
                i += 2
            else:
                while m[i]:
                    i += m[i] + 1
                i += 1
            rtype, rdlen = int.from_bytes(m[i:i + 2], "big"), int.from_bytes(m[i + 8:i + 10], "big")
            i += 10
            if rtype == qtype and rdlen == size:
                out.append(socket.inet_ntop(fam, m[i:i + rdlen]))
            i += rdlen
    if not out:
        raise Refused("cannot resolve %s" % host)
    return out


DNS_CACHE = {}
SAFE_CACHE = {}


def pinned_addr(host):
    """The address the correct guards connect to, every answer checked."""
    if CASE == "perfamily":
        addrs = []
        for fam in (socket.AF_INET, socket.AF_INET6):
            try:
                addrs += lookup(host, fam)
            except Refused:
                pass
        if not addrs:
            raise Refused("cannot resolve %s" % host)
        return checked(addrs)
    if CASE == "ownresolver":
        return checked(own_lookup(host))
    if CASE == "dnscache":
        if host not in DNS_CACHE:
            DNS_CACHE[host] = lookup(host)
        return checked(DNS_CACHE[host])
    return checked(lookup(host))


def fetch_once(host, path):
    """One request for CASE; returns (status, location, body)."""
    if CASE == "v4check":
        try:
            a = socket.gethostbyname(host)
        except socket.gaierror:
            a = None  # no IPv4 answer: nothing to check, the client will say
        if a is not None and internal(a):
            raise Refused("internal address %s" % a)
        return get(host, None, path)
    if CASE == "recheck":
        checked(lookup(host))
        return get(host, None, path)
    if CASE == "isprivate":
        return get(host, checked(lookup(host), py_private), path)
    if CASE == "isglobal":
        return get(host, checked(lookup(host), py_not_global), path)
    if CASE == "blocklist":
        h = host.lower()
        if h in ("localhost", "0.0.0.0", "::1", "169.254.169.254", "metadata.google.internal") or \
                h.startswith(("127.", "10.", "192.168.", "172.16.", "169.254.")):
            raise Refused("blocked host %s" % host)
        return get(host, None, path)
    if CASE == "afterconnect":
        r = get(host, None, path)
        checked(lookup(host))
        return r
    if CASE == "checkcache":
        if host not in SAFE_CACHE:
            checked(lookup(host))
            SAFE_CACHE[host] = True
        return get(host, None, path)
    return get(host, pinned_addr(host), path)


def hostof(u):
    """u's host as the URL spells it: urlsplit's hostname folds case,
    which an allow-list of exact names must not."""
    h = u.netloc.rpartition("@")[2]
    if h.startswith("["):
        return h[1:h.find("]")]
    return h.partition(":")[0]


def fetch(url):
    u = urllib.parse.urlsplit(url)
    host, path = hostof(u), u.path or "/"
    if u.query:
        path += "?" + u.query
    if not allowed(host):
        raise Refused("host %s is not allowed" % host)
    status, loc, body = fetch_once(host, path)
    hops = 0
    while CASE in ("followpin", "redirname") and status in (301, 302, 303, 307, 308) and loc and hops < 5:
        hops += 1
        n = urllib.parse.urlsplit(urllib.parse.urljoin("http://%s%s" % (host if ":" not in host else "[" + host + "]", path), loc))
        host, path = hostof(n), n.path or "/"
        if n.query:
            path += "?" + n.query
        if not allowed(host):
            raise Refused("redirect to %s is not allowed" % host)
        if CASE == "redirname":
            status, loc, body = get(host, None, path)
        else:
            status, loc, body = get(host, pinned_addr(host), path)
    if status == 302 or status == 301:
        return "redirect to %s" % loc
    if status >= 400:
        raise Refused("HTTP %d" % status)
    return body.decode("utf-8", "replace")


def answer(rid, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError:
            continue
        if "id" not in req:
            continue
        m = req.get("method")
        if m == "initialize":
            answer(req["id"], {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                               "serverInfo": {"name": "guardmcp", "version": "1"}})
        elif m == "tools/list":
            answer(req["id"], {"tools": [{"name": "fetch", "description": "fetch a URL",
                                          "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}},
                                                          "required": ["url"]}}]})
        elif m == "tools/call":
            url = req.get("params", {}).get("arguments", {}).get("url", "")
            try:
                text, err = fetch(url), False
            except (Refused, OSError, http.client.HTTPException, ValueError, UnicodeError) as e:
                text, err = "Error: %s" % e, True
            answer(req["id"], {"content": [{"type": "text", "text": text}], "isError": err})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": req["id"],
                                         "error": {"code": -32601, "message": "no method %s" % m}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
