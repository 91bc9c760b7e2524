#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
# A stdio client that writes requests as fast as the server takes them and does not read its
# replies for PAUSE seconds, while it samples the server's RSS; then it reads everything and
# counts the answers (none may be missing).
#   bench/abuse/stdio_flood.py SERVER [PAUSE=15] [list|search] [SERVER ARGS...]
# e.g. bench/abuse/stdio_flood.py build/ci/examples/helpdesk/helpdesk 15 list --db /tmp/hd.db
# `list` floods tools/list (large replies, cheap to answer); `search` floods search_tickets.
import json, os, subprocess, sys, threading, time

server = sys.argv[1]
pause = float(sys.argv[2]) if len(sys.argv) > 2 else 15
kind = sys.argv[3] if len(sys.argv) > 3 else "list"
proc = subprocess.Popen([server, "--stdio", *sys.argv[4:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, bufsize=0)


def send(message):
    proc.stdin.write((json.dumps(message) + "\n").encode())


def memory():
    with open(f"/proc/{proc.pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
      "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
sent = 0
stop = False


def write_requests():
    global sent
    i = 1
    try:
        while not stop:
            if kind == "list":
                send({"jsonrpc": "2.0", "id": i, "method": "tools/list"})
            else:
                send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                      "params": {"name": "search_tickets", "arguments": {"page_size": 50}}})
            sent = i
            i += 1
    except OSError:
        pass


writer = threading.Thread(target=write_requests, daemon=True)
writer.start()
start = time.time()
while time.time() - start < pause:
    time.sleep(1)
    rss, peak = memory()
    print(f"t={time.time() - start:5.1f}s written={sent:7d} rss={rss} MB peak={peak} MB", flush=True)
stop = True
answered = set()
pending = b""
deadline = time.time() + 300
while time.time() < deadline:
    chunk = os.read(proc.stdout.fileno(), 1 << 20)
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b"\n")
    for line in lines:
        message = json.loads(line)
        if "id" in message:
            answered.add(message["id"])
    if not writer.is_alive() and len(answered) >= sent + 1:
        break
rss, peak = memory()
print(f"after reading: written={sent} answered={len(answered) - 1} missing={sent + 1 - len(answered)} "
      f"rss={rss} MB peak={peak} MB")
proc.stdin.close()
proc.wait(30)
