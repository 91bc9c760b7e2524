#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
# One principal opens N sessions (initialize only), then another tries to open M: counts the
# answers, and how many of the second principal's sessions still answer a ping at the end.
#   bench/abuse/session_flood.py HOST PORT N M FLOOD_TOKEN OTHER_TOKEN
import http.client, json, sys

host, port, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
flood_token, other_token = sys.argv[5], sys.argv[6]
initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "1"}}})
connections = {}


def post(token, body, session=None):
    c = connections.setdefault(token, http.client.HTTPConnection(host, port, timeout=30))
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": "Bearer " + token}
    if session:
        headers["Mcp-Session-Id"] = session
    c.request("POST", "/mcp", body, headers)
    r = c.getresponse()
    r.read()
    return r.status, r.getheader("Mcp-Session-Id")


def open_sessions(token, count):
    statuses, sessions = {}, []
    for _ in range(count):
        status, session = post(token, initialize)
        statuses[status] = statuses.get(status, 0) + 1
        if status == 200:
            sessions.append(session)
    return statuses, sessions


flood, _ = open_sessions(flood_token, n)
other, sessions = open_sessions(other_token, m)
ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"})
alive = sum(1 for s in sessions if post(other_token, ping, s)[0] == 200)
print(f"flooding principal: {n} initialize -> {flood}; other principal: {m} initialize -> {other}; "
      f"its sessions alive at the end: {alive}")
