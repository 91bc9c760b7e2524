#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Candor as a consumer sees it; each step is one test (tests/consumer/CMakeLists.txt).
#   consumer.sh install BUILD_DIR PREFIX
#       install the build to PREFIX (emptied first), as `cmake --install` does for a user
#   consumer.sh core PREFIX WORK SOURCE_DIR [CMAKE_ARGS...]
#       configure and build SOURCE_DIR (a stdio tool on candor::core: tests/consumer/stdio_tool)
#       against PREFIX, check that it links neither OpenSSL nor SQLite, call its tool once
#   consumer.sh quickstart PREFIX WORK SOURCE_DIR [CMAKE_ARGS...]
#       the same for the quick start (examples/quickstart, on candor::core and candor::http)
#   consumer.sh tutorial PREFIX WORK SOURCE_DIR [CMAKE_ARGS...]
#       the same for the collection tutorial's example (examples/first_collection)
#   consumer.sh framework PREFIX WORK SOURCE_DIR [CMAKE_ARGS...]
#       the same for a collection tool on candor::framework (tests/consumer/collection)
#   consumer.sh unknown-component PREFIX WORK [CMAKE_ARGS...]
#       find_package(candor COMPONENTS nosuch) must fail and name the components there are
set -euo pipefail
step="$1"
shift
fail() { echo "FAIL: $*" >&2; exit 1; }

# configure_and_build SOURCE BINARY PREFIX CMAKE_ARGS... (output in BINARY.log, shown on failure)
configure_and_build() {
  local source="$1" binary="$2" prefix="$3"
  shift 3
  rm -rf "$binary" && mkdir -p "$binary"
  if ! { cmake -S "$source" -B "$binary" -DCMAKE_PREFIX_PATH="$prefix" "$@" &&
         cmake --build "$binary"; } >"$binary.log" 2>&1; then
    cat "$binary.log"
    fail "$source does not configure and build against $prefix"
  fi
  echo "ok: $source configures and builds against $prefix"
}

# call SERVER TOOL ARGUMENTS: initialize, then one tools/call; prints the call's answer line.
call() {
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"consumer-test","version":"1"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$2\",\"arguments\":$3}}" |
    "$1" --stdio 2>/dev/null | grep -F '"id":2' || true
}

# expect WHAT TEXT NEEDLE...: every needle is in TEXT.
expect() {
  local what="$1" text="$2"
  shift 2
  for needle in "$@"; do
    [[ "$text" == *"$needle"* ]] || { echo "answer: $text" >&2; fail "$what: no $needle"; }
  done
  echo "ok: $what"
}

case "$step" in
  install)
    build="$1" prefix="$2"
    rm -rf "$prefix" && mkdir -p "$prefix"
    cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; fail "cmake --install"; }
    for f in lib/cmake/candor/candorConfig.cmake lib/cmake/candor/candorConfigVersion.cmake \
             lib/cmake/candor/candor-core-targets.cmake lib/cmake/candor/candor-sql_collection-targets.cmake \
             include/candor/app/command_line.hpp include/candor/sql_collection/collection.hpp; do
      [ -f "$prefix/$f" ] || fail "the install has no $f"
    done
    echo "ok: installed to $prefix"
    ;;
  core)
    prefix="$1" work="$2" source="$3"
    shift 3
    configure_and_build "$source" "$work/core" "$prefix" "$@"
    server="$work/core/primes"
    libs="$(ldd "$server")"
    if grep -E 'libcrypto|libssl|libsqlite3' <<<"$libs"; then fail "a candor::core server links OpenSSL or SQLite"; fi
    echo "ok: no OpenSSL, no SQLite among the stdio tool's libraries"
    answer="$(call "$server" list_primes '{"below":100,"limit":5}')"
    expect "list_primes answers five primes and says more follow" "$answer" \
      '"status":"partial"' '"complete":false' '"code":"RESULT_LIMIT_REACHED"' '"data":[2,3,5,7,11]' '"isError":false'
    answer="$(call "$server" list_primes '{"below":1e400}')"
    expect "list_primes refuses a number that is not one before it runs" "$answer" '"isError":true' '"path":"/below"'
    ;;
  quickstart)
    prefix="$1" work="$2" source="$3"
    shift 3
    configure_and_build "$source" "$work/quickstart" "$prefix" "$@"
    answer="$(call "$work/quickstart/quickstart" search_notes '{"query":"printer","limit":3}')"
    expect "search_notes answers a partial result and says why" "$answer" \
      '"status":"partial"' '"complete":false' '"code":"RESULT_LIMIT_REACHED"' '"matches":16' '"isError":false'
    ;;
  tutorial)
    prefix="$1" work="$2" source="$3"
    shift 3
    configure_and_build "$source" "$work/tutorial" "$prefix" "$@"
    answer="$(call "$work/tutorial/books" search_books '{"author":"Author 7","page_size":3}')"
    expect "the tutorial's search_books answers a first page and how to go on" "$answer" \
      '"status":"partial"' '"code":"MORE_PAGES_AVAILABLE"' '"kind":"next_cursor"' '"id":7,' '"id":47,' '"id":87,'
    ;;
  framework)
    prefix="$1" work="$2" source="$3"
    shift 3
    configure_and_build "$source" "$work/framework" "$prefix" "$@"
    server="$work/framework/books"
    answer="$(call "$server" search_books '{"filter":{"year":{"gte":2011}},"page_size":5}')"
    expect "search_books answers 5 of the 10 matches and how to go on" "$answer" \
      '"status":"partial"' '"code":"MORE_PAGES_AVAILABLE"' '"kind":"next_cursor"' '"title":"Book 21"' '"title":"Book 25"'
    [[ "$answer" != *'"title":"Book 26"'* ]] || fail "search_books answered more than a page"
    "$server" --help | grep -q -- '--http \[HOST:\]PORT' || fail "books --help does not offer --http"
    echo "ok: books --help offers --http"
    ;;
  unknown-component)
    prefix="$1" work="$2"
    shift 2
    project="$work/unknown-component"
    rm -rf "$project" && mkdir -p "$project"
    printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(unknown_component LANGUAGES CXX)' \
      'find_package(candor CONFIG REQUIRED COMPONENTS core nosuch)' >"$project/CMakeLists.txt"
    if cmake -S "$project" -B "$project/build" -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$project.log" 2>&1; then
      fail "find_package(candor COMPONENTS nosuch) succeeded"
    fi
    grep -q "candor has no component 'nosuch'" "$project.log" || { cat "$project.log"; fail "no word on the unknown component"; }
    echo "ok: an unknown component fails the configure step and is named"
    ;;
  *) fail "unknown step $step" ;;
esac
