# A sandbox child that breaks the sbxfuzz/1 protocol in one way, named by
# its first argument, on its first sandbox/run; until then, and for ops it
# does not break, it answers unknown_op. The process tests use it.
import json, os, sys, time

how = sys.argv[1]
runs = 0
if len(sys.argv) > 2:  # a file each child appends its pid to, for the tests that count children
    with open(sys.argv[2], "a") as f:
        f.write("%d\n" % os.getpid())

def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

for line in sys.stdin:
    m = json.loads(line)
    mid, method = m.get("id"), m.get("method")
    ok = {"jsonrpc": "2.0", "id": mid, "result": {}}
    if method == "initialize":
        ok["result"] = {"name": "misbehave-" + how, "version": "0"}
        send(ok)
    elif method == "sandbox/open" and how == "hangopen":
        print("misbehaving: hangopen", file=sys.stderr, flush=True)
        time.sleep(3600)
    elif method == "sandbox/open" or method == "shutdown":
        send(ok)
        if method == "shutdown":
            sys.exit(0)
    elif method == "sandbox/grant":
        if how == "outofturn":
            send({"jsonrpc": "2.0", "id": 99, "method": "world/read", "params": {"path": "/etc/passwd"}})
        g = {"fs_read": [], "fs_write": [], "net": [], "tool": [], "budgets": {"ops": 1000, "wall": 1000000, "output": 1048576}}
        send({"jsonrpc": "2.0", "id": mid, "result": g})
    elif method == "sandbox/run":
        runs += 1
        res = {"kind": "unknown_op", "hard": False, "data": "", "usage": {"ops": runs, "wall": 0, "output": 0}}
        if runs == 1:
            print("misbehaving: " + how, file=sys.stderr, flush=True)
            if how == "crash":
                sys.exit(3)
            if how == "hang":
                time.sleep(3600)
            if how == "garbage":
                sys.stdout.write("hello, world\n"); sys.stdout.flush(); continue
            if how == "wrongid":
                mid = mid + 100
            if how == "error":
                send({"jsonrpc": "2.0", "id": mid, "error": {"code": -1, "message": "nope"}}); continue
            if how == "unknownkind":
                res["kind"] = "teleport"
            if how == "huge":  # a line over the limit the test names, written a megabyte at a time
                sys.stdout.write('{"jsonrpc": "2.0", "id": %d, "result": {"kind": "ok", "data": "' % mid)
                for _ in range(int(os.environ["MISBEHAVE_HUGE"]) // (1 << 20) + 1):
                    sys.stdout.write("x" * (1 << 20))
                sys.stdout.write('"}}\n'); sys.stdout.flush(); continue
        send({"jsonrpc": "2.0", "id": mid, "result": res})
