#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The helpdesk's systemd unit: systemd-analyze verify accepts it (with ExecStart pointing at the
# binary just built), its offline security exposure stays at 1.5 or below, the hardening the
# deployment doc promises is there, and every flag of its command line is one the binary knows.
# Usage: systemd_unit.sh UNIT HELPDESK
set -euo pipefail
unit="$1"
helpdesk="$(realpath "$2")"
command -v systemd-analyze >/dev/null || { echo "FAIL: systemd-analyze not found (scripts/setup-deps installs systemd)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
name="$(basename "$unit")"
sed "s|/usr/local/bin/candor-helpdesk|$helpdesk|" "$unit" >"$work/$name"

if systemd-analyze verify "$work/$name" >"$work/verify" 2>&1 && [ ! -s "$work/verify" ]; then
  echo "ok: systemd-analyze verify"
else
  echo "FAIL: systemd-analyze verify:"; cat "$work/verify"; fail=1
fi
score="$({ systemd-analyze security --offline=true "$work/$name" 2>/dev/null || true; } \
  | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')"
if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
  echo "ok: security exposure $score"
else
  echo "FAIL: security exposure '${score:-?}' (1.5 or below expected)"; { systemd-analyze security --offline=true "$work/$name" || true; } | grep '✗'; fail=1
fi
for directive in DynamicUser=yes ProtectSystem=strict StateDirectory=candor-helpdesk NoNewPrivileges=yes \
                 LoadCredential=candor-sealing-keys: CapabilityBoundingSet= PrivateTmp=yes \
                 Environment=GLIBC_TUNABLES=glibc.malloc.tcache_count=64; do
  grep -q "^$directive" "$unit" && echo "ok: $directive" || { echo "FAIL: $directive missing"; fail=1; }
done
# Secrets never on the command line or in the environment.
if grep -Eq '^(Environment|ExecStart).*(SEALING_KEYS=|[0-9a-f]{32})' "$unit"; then
  echo "FAIL: a secret in Environment= or ExecStart="; fail=1
fi
# The flags of ExecStart (its continuation lines joined) are the binary's.
help="$("$helpdesk" --help)"
flags="$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | grep -o -- ' --[a-z-]*' || true)"
[ -n "$flags" ] || { echo "FAIL: no flags found in ExecStart"; fail=1; }
for flag in $flags; do
  echo "$help" | grep -q -- "^ *$flag\b" && echo "ok: $flag" || { echo "FAIL: $helpdesk does not know $flag"; fail=1; }
done
exit $fail
