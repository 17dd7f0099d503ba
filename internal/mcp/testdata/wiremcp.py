# An MCP filesystem server (server-filesystem's tools and words, its
# lexical then resolved check) whose wire behaviour the first argument
# chooses, as real servers behave on stdio within MCP 2025-06-18: the
# harness must judge each as it judges the plain one, without a finding,
# a hang or a process left, but the case marked DEFECT, which it must
# convict. The allowed directories follow. Cases:
#   plain      nothing else
#   notif      log, progress and list_changed notifications before each answer
#   srvreq     ping, roots/list, sampling and elicitation asked during each call
#   order      members in another order, extra members, _meta and annotations
#   paged      tools/list in three pages by nextCursor
#   v2024, v2025  an older protocol version negotiated
#   crlf       CRLF line ends
#   blank      an empty line before each answer
#   after      a log notification after each answer
#   preinit    a log and a ping before the answer to initialize
#   struct     structuredContent beside content, with isError on refusals
#   link       a resource_link beside a read's text
#   chunked    each line written in two pieces
#   bom        a UTF-8 byte order mark before the first message (.NET's console)
#   idfloat, idexp, idstr  the id of each answer as 2.0, 2e0 or "2" (Gson; the TypeScript client reads any)
#   bigmeta    several megabytes of _meta in each answer
#   bigline    a log notification of several megabytes before each answer
#   stderr     stderr written without end by a thread
#   jit        the first call slow, the rest fast
#   heartbeat  a single-threaded server's timer: log notifications while idle, written blocking
#   lazytools  no tools listed at first; they come a moment later, with tools/list_changed
#   nullnotif  a notification answered with method-not-found and a null id
#   logleak    a DEFECT: each file asked for, forbidden or not, read and its start sent in a log notification before the check
#   exitidle=S exits once idle for S seconds after a call (an idle timeout)
#   echoafter  after each answer, a log notification of the text it answered (a correct server)
#   nullcall   answers each tools/call with method-not-found and a null id, as one that could not read it
import json, os, select, sys, threading, time

case, _, arg = sys.argv[1].partition("=")
allowed = sys.argv[2:]
out = sys.stdout.buffer
first = [True]
lock = threading.Lock()

def raw(line):
    eol = b"\r\n" if case == "crlf" else b"\n"
    b = line.encode() + eol
    if first[0] and case == "bom":
        b = b"\xef\xbb\xbf" + b
    first[0] = False
    with lock:
        if case == "chunked":
            out.write(b[: len(b) // 2]); out.flush(); time.sleep(0.002)
            out.write(b[len(b) // 2 :])
        else:
            out.write(b)
        out.flush()

def send(obj):
    raw(json.dumps(obj))

inbuf = [b""]
def pending():
    """Whether a request waits: a line read already, or bytes on stdin."""
    return b"\n" in inbuf[0] or bool(select.select([0], [], [], 0)[0])

def recv():
    while b"\n" not in inbuf[0]:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            sys.exit(0)
        inbuf[0] += chunk
    line, _, inbuf[0] = inbuf[0].partition(b"\n")
    return json.loads(line)

def idtext(mid):
    if case == "idfloat":
        return "%d.0" % mid
    if case == "idexp":
        return "%de0" % mid
    if case == "idstr":
        return json.dumps(str(mid))
    return json.dumps(mid)

def respond(mid, result):
    if case == "notif":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fs", "data": {"msg": "working", "id": mid}}})
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": mid, "progress": 1, "total": 2, "message": "half"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}})
    if case == "bigline":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "x" * (6 << 20)}})
    if case == "blank":
        raw("")
    if case == "bigmeta":
        result = dict(result, _meta={"trace": "y" * (4 << 20)})
    if case in ("idfloat", "idexp", "idstr", "order"):
        body = json.dumps(result)
        if case == "order":
            raw('{"result": %s, "extra": {"a": [1, 2]}, "id": %s, "jsonrpc": "2.0"}' % (body, idtext(mid)))
        else:
            raw('{"jsonrpc": "2.0", "id": %s, "result": %s}' % (idtext(mid), body))
    else:
        send({"jsonrpc": "2.0", "id": mid, "result": result})
    if case == "after":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "done %s" % mid}})

def text(t, err=False):
    res = {"content": [{"type": "text", "text": t}]}
    if case == "order":
        res["content"][0]["annotations"] = {"audience": ["user"], "priority": 0.5}
        res["content"][0]["_meta"] = {"k": "v"}
        res["_meta"] = {"request": "x"}
    if case == "struct":
        res["structuredContent"] = {"ok": not err, "message": t if err else "done"}
    if case == "link" and not err:
        res["content"].append({"type": "resource_link", "uri": "file:///x", "name": "x"})
    if err:
        res["isError"] = True
    return res

serial = [1000]
def ask_server_requests():
    reqs = [
        {"jsonrpc": "2.0", "id": "s-%d" % serial[0], "method": "ping"},
        {"jsonrpc": "2.0", "id": serial[0] + 1, "method": "roots/list"},
        {"jsonrpc": "2.0", "id": serial[0] + 2, "method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 1}},
        {"jsonrpc": "2.0", "id": serial[0] + 3, "method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}},
    ]
    serial[0] += 4
    for r in reqs:
        send(r)
    want = {json.dumps(r["id"]) for r in reqs}
    while want:
        m = recv()
        k = json.dumps(m.get("id"))
        if k not in want or ("result" not in m and "error" not in m):
            print("srv: unexpected " + json.dumps(m), file=sys.stderr, flush=True)
            sys.exit(4)
        want.discard(k)

def inside(p):
    n = os.path.normpath(p)
    if not any(os.path.commonpath([n, d]) == d for d in allowed):
        return False
    r = os.path.realpath(p)
    return any(os.path.commonpath([r, os.path.realpath(d)]) == os.path.realpath(d) for d in allowed)

def call(args, name):
    path = args.get("path")
    if case == "logleak" and isinstance(path, str):  # a DEFECT: a debug log of what it read, before it checks
        try:
            with open(path, encoding="utf-8", newline="") as f:
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "logger": "fs", "data": {"read": path, "head": f.read(4096)}}})
        except (OSError, ValueError):
            pass
    if not isinstance(path, str) or not os.path.isabs(path) or not inside(path):
        return text("Access denied - path outside allowed directories: %s not in %s" % (path, ", ".join(allowed)), True)
    try:
        if name == "read_file":
            with open(path, encoding="utf-8", newline="") as f:
                return text(f.read())
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(args["content"])
        return text("Successfully wrote to " + path)
    except FileNotFoundError:
        return text("ENOENT: no such file or directory, open '%s'" % path, True)
    except UnicodeDecodeError:
        return text("Error: the file is not UTF-8 text", True)
    except OSError as e:
        return text("Error: %s" % e.strerror, True)

if case == "stderr":
    def flood():
        while True:
            sys.stderr.write("debug: " + "z" * 4000 + "\n")
    threading.Thread(target=flood, daemon=True).start()

m = recv()
if case == "preinit":
    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "starting"}})
    send({"jsonrpc": "2.0", "id": "p0", "method": "ping"})
    if recv().get("id") != "p0":
        sys.exit(5)
version = {"v2024": "2024-11-05", "v2025": "2025-03-26"}.get(case, "2025-06-18")
send({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": version, "capabilities": {"tools": {"listChanged": True}, "logging": {}},
                                                  "serverInfo": {"name": "srv-" + case, "version": "1"}, "instructions": "a test server"}})
tools = [{"name": "read_file", "description": "read", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
         {"name": "write_file", "description": "write", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}]
pages = [tools] if case != "paged" else [[{"name": "list_directory", "inputSchema": {"type": "object"}}], [tools[1]], [tools[0]]]
def heartbeat_until_request():
    """As a single-threaded server (node) with a timer: a log notification
    every few milliseconds while no request waits, written blocking (node
    writes a pipe synchronously), so that a client that does not read
    stops its loop, stdin unread, until it does."""
    while not pending():
        time.sleep(0.002)
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "heartbeat " + "h" * 200}})

calls = 0
ready = False
while True:
    if case == "heartbeat":
        heartbeat_until_request()
    m = recv()
    mid, method = m.get("id"), m.get("method")
    if mid is None:
        if case == "nullnotif":  # answered as any unknown method, as hand-written servers do
            send({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found: %s" % method}})
        continue  # notifications/initialized, and any other
    if method == "tools/list":
        cur = int(m.get("params", {}).get("cursor") or "0")
        page = {"tools": pages[cur]}
        if case == "lazytools" and not ready:  # its tools come once a backend is up, said by list_changed
            page = {"tools": []}
            def up():
                time.sleep(0.3)
                globals()["ready"] = True
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            threading.Thread(target=up, daemon=True).start()
        if cur + 1 < len(pages):
            page["nextCursor"] = str(cur + 1)
        respond(mid, page)
        continue
    if method == "ping":
        respond(mid, {})
        continue
    if method != "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found"}})
        continue
    calls += 1
    if case == "nullcall":
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found"}})
        continue
    if case == "jit" and calls == 1:
        time.sleep(1.2)
    if case == "srvreq":
        ask_server_requests()
    res = call(m["params"].get("arguments", {}), m["params"]["name"])
    respond(mid, res)
    if case == "echoafter":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": json.dumps(res)}})
    if case == "closeout" and calls == 40:
        os.close(1)
        time.sleep(3600)
    if case == "exitidle" and not pending() and not select.select([0], [], [], float(arg or "0.3"))[0]:
        sys.exit(0)  # idle: as a server with an idle timeout does
