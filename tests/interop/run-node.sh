#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Runs a Node test script; exit 77 (ctest: skipped) when Node or the npm packages are missing.
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null 2>&1; then
  echo "SKIPPED: node is not installed (scripts/setup-deps installs it)"; exit 77
fi
if [ ! -d "$here/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "SKIPPED: npm packages missing: run scripts/setup-node-deps"; exit 77
fi
case "$1" in
  *.sh) exec bash "$@" ;;
  *) exec node "$@" ;;
esac
