#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs a Node test script; fails at once, saying what to install, when Node or the npm packages
# are missing (scripts/test installs both).
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null 2>&1; then
  echo "FAIL: node is not installed (scripts/setup-deps installs it)"; exit 1
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "FAIL: npm packages missing: run scripts/setup-node-deps"; exit 1
fi
case "$1" in
  *.sh) exec bash "$@" ;;
  *) exec node "$@" ;;
esac
