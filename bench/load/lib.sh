# SPDX-License-Identifier: BSL-1.0
# Helpers the load scripts share (sourced by bench/load/run.sh and bench/load/scaling.sh).

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'; }
# CPU ticks (1/100 s) a process has spent, user and system.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# CPU ticks of this script's waited-for children so far (cutime + cstime): wrk's, after it exits.
children_ticks() { awk '{print $16 + $17}' "/proc/$$/stat"; }
# A process's peak resident memory, in KiB.
hwm() { awk '/VmHWM/ {print $2}' "/proc/$1/status"; }
now_ns() { date +%s%N; }
# The value of key=value in a line of such pairs.
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<"$2"; }
# Waits until an HTTP server answers on PORT (10 s at most).
wait_for_port() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  return 1
}
