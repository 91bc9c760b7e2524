#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Checks that the docs say what the code is (tests/docs/CMakeLists.txt runs each as a test).
#   check_docs.sh SOURCE_DIR quickstart   the README's quick start is examples/quickstart/main.cpp
#                                         (from its first #include on), character for character
#   check_docs.sh SOURCE_DIR consumer     the README's consumer CMakeLists.txt is
#                                         tests/consumer/stdio_tool's (without its comments)
#   check_docs.sh SOURCE_DIR tutorial     the tutorials quote their programs whole
#                                         (docs/first-collection-tool.md examples/first_collection/
#                                         main.cpp, docs/first-approved-action.md examples/library/
#                                         main.cpp): their cpp blocks, in order, are the file from
#                                         its first #include
#   check_docs.sh SOURCE_DIR index        docs/README.md links every page of docs/, and every
#                                         page it links exists
#   check_docs.sh SOURCE_DIR history      no doc, comment or script speaks of issue or session
#                                         numbers (history lives in git)
set -euo pipefail
cd "$1"
fail() { echo "FAIL: $*" >&2; exit 1; }

# block FILE HEADING LANG: the first ```LANG block after the line HEADING.
block() {
  awk -v heading="$2" -v fence='```'"$3" '
    $0 == heading { seen = 1; next }
    seen && !inside && $0 == fence { inside = 1; next }
    inside && $0 == "```" { exit }
    inside { print }' "$1"
}

# shows HEADING LANG FILE TEXT: the README's block under HEADING is TEXT (FILE as the README
# quotes it), character for character.
shows() {
  local shown
  shown="$(block README.md "$1" "$2")"
  [ -n "$shown" ] || fail "README.md has no $2 block under '$1'"
  if [ "$shown" != "$4" ]; then
    diff <(echo "$shown") <(echo "$4") || true
    fail "README.md's $2 block under '$1' differs from $3 (< README, > file)"
  fi
  echo "ok: README.md shows $3 as it is"
}

case "$2" in
  quickstart)
    shows '## A tool in Candor' cpp examples/quickstart/main.cpp "$(sed -n '/^#include/,$p' examples/quickstart/main.cpp)"
    ;;
  consumer)
    shows '## Install Candor and use it from CMake' cmake tests/consumer/stdio_tool/CMakeLists.txt \
      "$(grep -v '^#' tests/consumer/stdio_tool/CMakeLists.txt)"
    ;;
  tutorial)
    for pair in docs/first-collection-tool.md:examples/first_collection/main.cpp \
                docs/first-approved-action.md:examples/library/main.cpp; do
      page="${pair%%:*}" file="${pair#*:}"
      # Every ```cpp block, separated by one blank line, as the file reads from its first #include.
      quoted="$(awk '$0 == "```cpp" { if (n++) print ""; inside = 1; next }
                     inside && $0 == "```" { inside = 0; next }
                     inside { print }' "$page")"
      if [ "$quoted" != "$(sed -n '/^#include/,$p' "$file")" ]; then
        diff <(echo "$quoted") <(sed -n '/^#include/,$p' "$file") || true
        fail "$page does not quote $file whole and in order (< page, > file)"
      fi
      echo "ok: $page quotes $file as it is"
    done
    ;;
  index)
    status=0
    for page in docs/*.md; do
      name="${page#docs/}"
      [ "$name" = README.md ] && continue
      grep -qF "]($name)" docs/README.md || { echo "FAIL: docs/README.md does not link $name" >&2; status=1; }
    done
    while read -r target; do
      [ -f "docs/$target" ] || [ -f "docs/${target%%#*}" ] || { echo "FAIL: docs/README.md links $target, which does not exist" >&2; status=1; }
    done < <(grep -oE '\]\([^)]+\)' docs/README.md | sed -E 's/^\]\((.*)\)$/\1/')
    [ "$status" -eq 0 ] && echo "ok: docs/README.md links every page of docs/"
    exit "$status"
    ;;
  history)
    if grep -rnIiE '\b(issue|session) #?[0-9]+' --exclude-dir=.git --exclude-dir='build*' \
         --exclude-dir=node_modules --exclude-dir=data . ; then
      fail "the lines above speak of issue or session numbers; say what the product does instead"
    fi
    echo "ok: no issue or session numbers"
    ;;
  *) fail "unknown check $2" ;;
esac
