#!/usr/bin/env bash
# User-space instructions per request of examples/hello with and without
# metrics, counted by callgrind (steady where CPU time is not: the count
# does not depend on the machine's load). The server runs under callgrind;
# after a warm-up, callgrind_control dumps (and zeroes) the counters, N
# keep-alive requests are sent with h2load, and a second dump's total
# instructions (Ir) ÷ N is the figure, and the part of it spent in
# App.serve (inclusive), where the metrics' cost is. Kernel time is not
# counted. Then one
# scrape of /metrics is counted the same way. Go's asynchronous preemption
# is turned off (GODEBUG=asyncpreemptoff=1): callgrind asserts on its
# signals.
#   usage: metrics-instructions.sh [N] [BINARY] [PATH]
#   e.g.:  go build -o /tmp/hello ./examples/hello
#          benchmarks/scripts/metrics-instructions.sh 20000 /tmp/hello /
#   env: PORT (default 22410), KEEP=1 keeps callgrind's files
set -u
N=${1:-20000}; BIN=${2:-/tmp/hello}; P=${3:-/}
PORT=${PORT:-22410}
OUT=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$OUT"' EXIT
ir() { grep -h '^totals:' "$1" | awk '{print $2}'; } # first event is Ir
for mode in off on; do
  on=false; [ $mode = on ] && on=true
  GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$mode" \
    "$BIN" -addr 127.0.0.1:$PORT -metrics=$on >"$OUT/log.$mode" 2>&1 &
  vg=$!
  for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.5; done
  h2load --h1 -n 2000 -c 4 "http://127.0.0.1:$PORT$P" >/dev/null  # warm-up
  callgrind_control -d warm $vg >/dev/null 2>&1
  h2load --h1 -n "$N" -c 4 "http://127.0.0.1:$PORT$P" | grep -E '^requests:'
  callgrind_control -d run $vg >/dev/null 2>&1
  per=$(echo "$(ir "$OUT/cg.$mode.2")/$N" | bc -l | cut -c1-7)
  # The App's share (routing, handler, and with metrics the hook and the
  # counters), apart from the scheduler's, which varies from run to run.
  app=$(callgrind_annotate --inclusive=yes "$OUT/cg.$mode.2" 2>/dev/null |
    awk '/gwist\.\(\*App\)\.serve \[/{gsub(",","",$1); print $1; exit}')
  echo "$mode: $per instructions per request (server, user space), $(echo "$app/$N" | bc -l | cut -c1-6) of them in App.serve"
  if [ $mode = on ]; then
    curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics"
    callgrind_control -d scrape $vg >/dev/null 2>&1
    echo "on: one /metrics scrape: $(ir "$OUT/cg.$mode.3") instructions"
  fi
  kill -9 $vg; wait $vg 2>/dev/null
done
