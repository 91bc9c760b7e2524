#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
# Opens N TCP connections to an HTTP server that send nothing (or, with --partial, only a request
# line), then times a real call (initialize, then tools/call) until it is answered 200, retrying
# every 0.5 s while the server refuses.
#   bench/abuse/silent_connections.py HOST PORT N [TOKEN] [--partial]
# (raise the open-files limit first: ulimit -n 8192)
import http.client, json, socket, sys, time

args = [a for a in sys.argv[1:] if a != "--partial"]
partial = "--partial" in sys.argv
host, port, n = args[0], int(args[1]), int(args[2])
token = args[3] if len(args) > 3 else None
held = []
for _ in range(n):
    s = socket.create_connection((host, port))
    if partial:
        s.sendall(b"POST /mcp HTTP/1.1\r\n")
    held.append(s)
time.sleep(1)  # the server accepts them all
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
if token:
    headers["Authorization"] = "Bearer " + token


def post(body, extra=None):
    c = http.client.HTTPConnection(host, port, timeout=120)
    c.request("POST", "/mcp", json.dumps(body), {**headers, **(extra or {})})
    r = c.getresponse()
    r.read()
    c.close()
    return r.status, r.getheader("Mcp-Session-Id")


start = time.time()
tries = 0
while time.time() - start < 180:
    tries += 1
    try:
        status, session = post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "1"}}})
    except OSError:
        status = 0
    if status == 200:
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, {"Mcp-Session-Id": session})
        status, _ = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, {"Mcp-Session-Id": session})
        print(f"{n} {'partial' if partial else 'silent'} connections: a real call answered {status} "
              f"after {time.time() - start:.2f} s ({tries} attempt(s))")
        break
    time.sleep(0.5)
else:
    print("no answer within 180 s")
