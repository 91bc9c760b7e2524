#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# scripts/check-layers passes on the checkout, and fails on a copy of it where a module looks up
# (framework/src/json includes an app header), where a folder is off the map, or where a
# component places part of a folder.
# Usage: check_layers.sh SOURCE_DIR
set -euo pipefail
src="$1"
check="$src/scripts/check-layers"
"$check" "$src" >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy() {
  rm -rf "$work/tree"
  mkdir -p "$work/tree/docs" "$work/tree/cmake"
  cp -r "$src/framework" "$work/tree/"
  cp "$src/docs/architecture.md" "$work/tree/docs/"
  cp "$src/cmake/CandorComponents.cmake" "$work/tree/cmake/"
}
expect_failure() {  # expect_failure WHAT PATTERN
  if out="$("$check" "$work/tree" 2>&1)"; then
    echo "check-layers passed a tree where $1" >&2
    exit 1
  fi
  grep -q -- "$2" <<<"$out" || { echo "check-layers failed without naming '$2' where $1:"$'\n'"$out" >&2; exit 1; }
}

copy
"$check" "$work/tree" >/dev/null

copy
printf '#include <candor/app/command_line.hpp>\n' >>"$work/tree/framework/src/json/intake.cpp"
expect_failure "json includes an app header" "framework/src/json/intake.cpp:.*'json' (floor 1) includes 'app'"

copy
printf '#include "../mcp/server.hpp"\n' >>"$work/tree/framework/src/schema/compile.cpp"
expect_failure "schema includes mcp by a relative path" "'schema' (floor 2) includes 'mcp'"

copy
printf '#include <candor/paging/collection.hpp>\n' >>"$work/tree/framework/src/validation/pipeline.cpp"
expect_failure "validation includes its peer paging" "'validation' (floor 6) includes 'paging' (floor 6)"

copy
mkdir -p "$work/tree/framework/src/newmodule"
expect_failure "a module folder is off the map" "module 'newmodule' is on no floor"

copy
sed -i 's/candor_component(ops MODULES ops /candor_component(ops MODULES ops app\/ops_* /' "$work/tree/cmake/CandorComponents.cmake"
expect_failure "a component places part of a folder" "'app/ops_\*' splits module 'app'"
echo "check-layers: passes the checkout, fails on each breach"
