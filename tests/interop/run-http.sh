#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Starts SERVER over Streamable HTTP on a free loopback port and runs a Node client script
# against it in http mode. Usage: run-http.sh SERVER SCRIPT [SERVER FLAGS...]
set -euo pipefail
server="$1"; script="$2"; shift 2
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/server-lib.sh"
start_server "$server" "$@"
node "$here/$script" http "$url"
