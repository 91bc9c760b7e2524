#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The Containerfile, checked without building it (scripts/container-image builds and runs it):
# its runtime stage installs the Debian package of every shared library the binaries link directly
# (apt brings what those depend on), it
# is multi-stage on Debian 12, runs as a non-root user, takes its secrets from files, and the
# flags of its CMD are the binary's.
# Usage: container_runtime.sh CONTAINERFILE HELPDESK CANDOR
set -euo pipefail
containerfile="$1"
shift
binaries=("$@")
command -v dpkg >/dev/null || { echo "FAIL: dpkg not found (the image is Debian 12: check it on Debian)"; exit 1; }
fail=0

declared="$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"$/\1/p' "$containerfile")"
[ -n "$declared" ] || { echo "FAIL: no ARG RUNTIME_PACKAGES in $containerfile"; exit 1; }
# In every Debian base (minbase: apt needs them).
essential="libc6 libgcc-s1 libstdc++6"
needed=""
# The libraries the binaries link directly (their NEEDED entries), where the loader finds them;
# apt installs what those packages depend on (libpq5 brings Kerberos and LDAP, say).
direct="$(for b in "${binaries[@]}"; do objdump -p "$b" | awk '$1 == "NEEDED" {print $2}'; done | sort -u)"
for lib in $(ldd "${binaries[@]}" | awk -v names="$direct" 'BEGIN { n = split(names, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
                                                            /=> \// && ($1 in want) {print $3}' | sort -u); do
  real="$(realpath "$lib")"
  # Debian 12 merged /lib into /usr/lib; dpkg knows a file under the path its package shipped.
  pkg="$(dpkg -S "$real" 2>/dev/null || dpkg -S "${real#/usr}" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true)"
  pkg="${pkg%%:*}"
  [ -n "$pkg" ] || { echo "FAIL: no Debian package ships $lib"; fail=1; continue; }
  needed="$needed $pkg"
done
for pkg in $(echo "$needed" | tr ' ' '\n' | sort -u); do
  if echo " $declared $essential " | grep -q " $pkg "; then echo "ok: $pkg"; else echo "FAIL: the runtime stage lacks $pkg"; fail=1; fi
done
for pkg in $declared; do
  echo " $needed " | grep -q " $pkg " || { echo "FAIL: $pkg is installed but no binary links it"; fail=1; }
done

[ "$(grep -c '^FROM ' "$containerfile")" -ge 2 ] && echo "ok: multi-stage" || { echo "FAIL: not multi-stage"; fail=1; }
grep -q '^ARG BASE=localhost/candor-debian:12$' "$containerfile" && echo "ok: Debian 12 base" || { echo "FAIL: base"; fail=1; }
user="$(sed -n 's/^USER \([0-9]*\):[0-9]*$/\1/p' "$containerfile" | tail -1)"
[ -n "$user" ] && [ "$user" != 0 ] && echo "ok: runs as uid $user" || { echo "FAIL: no non-root numeric USER"; fail=1; }
if grep -Eq '^(ENV|ARG).*SEALING_KEYS=[^/]' "$containerfile"; then echo "FAIL: sealing keys in ENV/ARG"; fail=1; fi
grep -q '^ENV CANDOR_SEALING_KEYS_FILE=/run/secrets/' "$containerfile" && echo "ok: keys from a secret file" || { echo "FAIL: keys file"; fail=1; }
grep -q '^ENV GLIBC_TUNABLES=glibc.malloc.tcache_count=64$' "$containerfile" && echo "ok: glibc's per-thread cache" || { echo "FAIL: GLIBC_TUNABLES"; fail=1; }
help="$("${binaries[0]}" --help)"
for flag in $(sed -n '/^CMD /,/\]$/p' "$containerfile" | grep -o -- '"--[a-z-]*"' | tr -d '"'); do
  echo "$help" | grep -q -- "^ *$flag\b" && echo "ok: CMD $flag" || { echo "FAIL: ${binaries[0]} does not know $flag"; fail=1; }
done
exit $fail
