# An MCP filesystem server with server-filesystem's tools and words
# (read_file {path}, write_file {path, content}, "Access denied - path
# outside allowed directories", "ENOENT"), jailed as its first argument
# says; the allowed directories follow. Each mode is a jail written the way
# Python servers write them: the defects are real violations of SPEC §13
# that a campaign must convict, the behaviours are a correct jail's that it
# must not. Python 3 standard library only.
import json, os, re, sys, tempfile, unicodedata, urllib.parse

mode, allowed = sys.argv[1], sys.argv[2:]
roots = [os.path.realpath(d) for d in allowed]


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def text(mid, t, err=False):
    res = {"content": [{"type": "text", "text": t}]}
    if err:
        res["isError"] = True
    send({"jsonrpc": "2.0", "id": mid, "result": res})


class Denied(Exception):
    pass


def within(r):
    """r is one of the roots or below one. Every mode checks the path as
    written first, as server-filesystem does, then the path it resolves."""
    if mode == "multiline":  # a regular expression whose anchors match at each line
        return any(re.search("^" + re.escape(d) + "(/|$)", r, re.M) for d in roots)
    if mode == "regexroot":  # each root a regular expression, its "." unescaped
        return any(re.match("^" + d + "(/|$)", r) for d in roots)
    return any(r == d or r.startswith(d.rstrip("/") + "/") for d in roots)


def need(r, p):
    if not within(r):
        raise Denied(p)


def checked(p):
    if mode == "urlpath":  # the path as a URL parser reads it: a query or a fragment cut off
        p = urllib.parse.urlsplit(p).path
    need(os.path.normpath(p), p)
    need(resolved(p), p)


cache = {}


def resolved(p):
    """The path the mode checks: most resolve it as a whole."""
    if mode == "cache":  # the resolution of each path kept for the life of the server
        if p not in cache:
            cache[p] = os.path.realpath(p)
        return cache[p]
    if mode == "onehop":  # the parent resolved, a final link read once
        d, n = os.path.split(p)
        r = os.path.join(os.path.realpath(d), n)
        if os.path.islink(r):
            r = os.path.normpath(os.path.join(os.path.dirname(r), os.readlink(r)))
        return r
    if mode == "nofollow":  # lexical: the final link is refused at open
        return os.path.normpath(p)
    if mode == "newnocheck":  # a new file's path taken as written
        return os.path.realpath(p) if os.path.exists(p) else os.path.normpath(p)
    if mode == "relpath":  # the resolved path relative to each root
        r = os.path.realpath(p)
        for d in roots:
            if not os.path.relpath(r, d).startswith(".."):
                return r
        raise Denied(p)
    return os.path.realpath(p)


def opened(p):
    """The path the mode opens once the check has passed."""
    if mode == "percent":  # a URL-ish path decoded after its check
        return urllib.parse.unquote(p)
    if mode == "nfkc":  # a path normalized after its check
        return unicodedata.normalize("NFKC", p)
    if mode == "nfc":  # composed after its check, as macOS file names are
        return unicodedata.normalize("NFC", p)
    if mode == "trimafter":  # white space stripped after the check, as a sanitizer after a middleware's
        return p.strip()
    if mode == "bslash":  # Windows separators translated after the check
        return p.replace("\\", "/")
    if mode in ("resolved", "atomic"):  # the resolved path, which has no link left to count
        return os.path.realpath(p)
    return p


def walk(p, write):
    """Mode "walk": each component opened below the last with O_NOFOLLOW,
    as os.Root does, and a link anywhere refused."""
    for d in roots:
        if p == d or p.startswith(d.rstrip("/") + "/"):
            break
    else:
        raise Denied(p)
    names = [n for n in p[len(d):].split("/") if n not in ("", ".")]
    if not names:
        raise IsADirectoryError(21, "Is a directory", p)
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for n in names[:-1]:
            nfd = os.open(n, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nfd
        flags = os.O_NOFOLLOW | (os.O_WRONLY | os.O_CREAT | os.O_TRUNC if write else os.O_RDONLY)
        return os.open(names[-1], flags, 0o644, dir_fd=fd)
    finally:
        os.close(fd)


def read(p):
    if mode == "walk":
        with os.fdopen(walk(p, False), encoding="utf-8", errors="replace", newline="") as f:
            return f.read()
    checked(p)
    flags = os.O_RDONLY | (os.O_NOFOLLOW if mode == "nofollow" else 0)
    with os.fdopen(os.open(opened(p), flags), encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


def write(p, data):
    if mode == "walk":
        with os.fdopen(walk(p, True), "w", encoding="utf-8", newline="") as f:
            f.write(data)
        return
    if mode == "openfirst":  # opened (truncated) first, then where the handle leads checked
        with open(p, "w", encoding="utf-8") as f:
            need(os.path.realpath("/proc/self/fd/%d" % f.fileno()), p)
            f.write(data)
        return
    checked(p)
    if mode == "strict" and os.path.islink(p) and not os.path.exists(p):
        raise Denied(p)  # a dangling link refused: stricter than SPEC §13
    q = opened(p)
    if mode in ("atomic", "atomicraw"):  # a temporary file renamed over the path
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(q), prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(data)
        os.replace(tmp, q)
        return
    if mode == "backup" and os.path.isfile(q):  # the old content kept beside it
        with open(q, "rb") as f, open(q + ".bak", "wb") as g:
            g.write(f.read())
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (os.O_NOFOLLOW if mode == "nofollow" else 0)
    with os.fdopen(os.open(q, flags, 0o644), "w", encoding="utf-8", newline="") as f:
        f.write(data)


def call(mid, name, args):
    p = args.get("path")
    if not isinstance(p, str) or not os.path.isabs(p):
        return text(mid, "Error: Access denied - path outside allowed directories: %r" % (p,), True)
    try:
        if mode == "existfirst" and not os.path.lexists(p):  # looked up before the allow-list
            raise FileNotFoundError(p)
        if name == "read_file":
            return text(mid, read(p))
        write(p, args.get("content", ""))
        text(mid, "Successfully wrote to " + p)
    except Denied:
        text(mid, "Error: Access denied - path outside allowed directories: %s not in %s" % (p, ", ".join(allowed)), True)
    except FileNotFoundError:
        text(mid, "Error: ENOENT: no such file or directory, open '%s'" % p, True)
    except OSError as e:
        text(mid, "Error: %s: %s" % (type(e).__name__, e.strerror), True)


def main():
    for line in sys.stdin:
        m = json.loads(line)
        mid, method = m.get("id"), m.get("method")
        if mid is None:
            continue  # notifications/initialized
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                                          "serverInfo": {"name": "jailmcp-" + mode, "version": "0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
                {"name": "read_file", "inputSchema": {"type": "object", "required": ["path"]}},
                {"name": "write_file", "inputSchema": {"type": "object", "required": ["path", "content"]}}]}})
        elif method == "tools/call":
            call(mid, m["params"]["name"], m["params"].get("arguments", {}))
        else:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})


main()
