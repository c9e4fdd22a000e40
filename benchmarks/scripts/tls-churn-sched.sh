#!/usr/bin/env bash
# One second of a server's execution trace in the middle of TLS churn with
# NODELAY clients (`tlsbench -t 8 -n 5000 -nodelay`, GOMAXPROCS=2), read
# by cmd/schedstates: how the Ps were used, which syscalls held one while
# goroutines waited, and how the gnet loop's goroutine spent its time.
#   usage: benchmarks/scripts/tls-churn-sched.sh NAME=BINARY
#   NAME gwist* runs BINARY as examples/hello (the trace from its
#   /debug/pprof/trace); any other as a peer server (BENCH_TRACE_FILE and
#   SIGUSR1). Build first: go build -o bin/ ./servers/... ./tlsbench
#   ./cmd/schedstates (in benchmarks/). env: PORT (default 29443)
set -euo pipefail
spec=$1; name=${spec%%=*}; bin=${spec#*=}; P=${PORT:-29443}
BIN=$(cd "$(dirname "$0")/.." && pwd)/bin
WORK=$(mktemp -d); trap 'kill $pid 2>/dev/null || true; rm -rf "$WORK"' EXIT
. "$(dirname "$0")/tls-churn-lib.sh"
SERVER_ENV="BENCH_TRACE_FILE=$WORK/trace.out" start_tls_server "$name" "$bin" "$P"
"$BIN/tlsbench" -addr 127.0.0.1:$P -t 8 -n 5000 -nodelay | grep conn/s &
load=$!
sleep 0.7
case $name in
gwist*) curl -sf -o "$WORK/trace.out" "http://127.0.0.1:$((P - 1))/debug/pprof/trace?seconds=1" ;;
*) kill -USR1 $pid; sleep 1.3 ;;
esac
wait $load
"$BIN/schedstates" "$WORK/trace.out"
