"""Drives sandbox.py's own-HTTP fetch without the harness, for sandbox_test.go.

    python3 drive.py JOB

JOB is JSON. {"ops": [[kind, arg, ...], ...], "grant": {...}} runs the ops on
a Sandbox in --own-http mode whose world answers only world/now (any other
world request is a failure: in this mode a fetch must not ask the harness).
With "resolver": {host: [addr, ...] | "fail"} the system resolver is replaced
by that table, and with "http": {path: body | null} the HTTP client is
replaced by it, so the guard's decisions are seen offline. Prints one JSON
object: the results, and the lookups and GETs the stubs saw.

{"get": [family, addr, port, host, path, limit]} calls http_get once and
prints {"body": ...}.
"""
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import sandbox  # noqa: E402

lookups, gets = [], []


def text(b):
    return b.decode("utf-8", "backslashreplace")


def fake_getaddrinfo(table):
    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        lookups.append({"host": text(host), "numeric": bool(flags & socket.AI_NUMERICHOST)})
        answer = table.get(text(host), "fail")
        if answer == "fail":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (a, port, 0, 0)) if ":" in a
                else (socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in answer]
    return getaddrinfo


def fake_http_get(answers):
    def http_get(family, sockaddr, host, path, limit):
        gets.append({"addr": sockaddr[0], "port": sockaddr[1], "host": text(host),
                     "path": text(path), "limit": limit})
        body = answers.get(text(path))
        return None if body is None else body.encode()
    return http_get


def run_ops(job):
    ticks = iter(range(1 << 62))

    def world(method, params):
        if method != "world/now":
            raise AssertionError(f"{method} asked of the harness in --own-http mode")
        return {"tick": next(ticks)}

    sandbox.world = world
    if "resolver" in job:
        socket.getaddrinfo = fake_getaddrinfo(job["resolver"])
    if "http" in job:
        sandbox.http_get = fake_http_get(job["http"])
    sb = sandbox.Sandbox(job["grant"], own_http=True)
    results = []
    for op in job["ops"]:
        kind, _, data = sb.run(op[0].encode(), [a.encode("utf-8", "surrogatepass") for a in op[1:]])
        results.append(kind if not data else f"{kind} {text(data)}")
    return {"results": results, "lookups": lookups, "gets": gets}


def get_once(job):
    family, addr, port, host, path, limit = job["get"]
    sockaddr = (addr, port) if family == 4 else (addr, port, 0, 0)
    fam = socket.AF_INET if family == 4 else socket.AF_INET6
    body = sandbox.http_get(fam, sockaddr, host.encode(), path.encode(), limit)
    return {"body": None if body is None else text(body)}


def main():
    job = json.loads(sys.argv[1])
    print(json.dumps(get_once(job) if "get" in job else run_ops(job)))


if __name__ == "__main__":
    main()
