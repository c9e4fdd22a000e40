#!/usr/bin/env bash
# GET /download?bytes=N with `curl -o /dev/null` against examples/hello and
# the net/http peer, alternating, one server at a time: speed, server CPU
# (clock ticks) and RSS at start and peak (VmHWM).
#   usage: download-speed.sh ./hello ./nethttp [rounds] [bytes]
set -u
HELLO=$1; NETHTTP=$2; R=${3:-3}; N=${4:-4294967296}
run() { # name binary port
  "$2" -addr 127.0.0.1:$3 >/dev/null 2>&1 & local pid=$!
  for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$3/ && break; sleep 0.1; done
  local rss0 t0 sp t1 hwm
  rss0=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  t0=$(awk '{print $14+$15}' /proc/$pid/stat)
  sp=$(curl -s -o /dev/null -w '%{speed_download}' "http://127.0.0.1:$3/download?bytes=$N")
  t1=$(awk '{print $14+$15}' /proc/$pid/stat)
  hwm=$(awk '/VmHWM/{print $2}' /proc/$pid/status)
  echo "$1 $(echo "$sp/1000000000" | bc -l | cut -c1-5) GB/s, server CPU $((t1 - t0)) ticks for $((N >> 20)) MiB, RSS start ${rss0} KiB peak ${hwm} KiB"
  kill $pid; wait $pid 2>/dev/null
}
for _ in $(seq "$R"); do run gwist "$HELLO" 22180; run nethttp "$NETHTTP" 22181; done
