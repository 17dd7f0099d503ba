"""An MCP server over stdio whose one tool, fetch, fetches the url it is
given, whatever the host, and keeps every page it fetched: a URL asked for
again is answered from that cache, with no request (a server's own cache,
as server-pdf's)."""
import json
import sys
import urllib.request

cache = {}
for line in sys.stdin:
    try:
        req = json.loads(line)
    except ValueError:
        continue
    if "id" not in req:
        continue  # a notification
    method = req.get("method")
    if method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "cachefetch", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "fetch", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        url = req["params"]["arguments"]["url"]
        error = False
        if url in cache:
            text = cache[url]
        else:
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    text = resp.read().decode("utf-8", "replace")
                cache[url] = text
            except Exception as e:
                text, error = "Error: %s" % e, True
        result = {"content": [{"type": "text", "text": text}], "isError": error}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "no such method"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": result}), flush=True)
