#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs the OAuth end-to-end test (e2e.mjs) against HELPDESK in a temporary folder (with Candor's
# CLI as a client too when CANDOR is given); fails at once, saying what to install, when Node or
# the npm packages are missing. Usage: run-e2e.sh HELPDESK [CANDOR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null 2>&1; then
  echo "FAIL: node is not installed (scripts/setup-deps installs it)"; exit 1
fi
if [ ! -d "$here/node_modules/oidc-provider" ] || [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "FAIL: npm packages missing: run scripts/setup-node-deps"; exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node "$here/e2e.mjs" "$1" "$work" ${2:+"$2"}
