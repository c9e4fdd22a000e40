#!/usr/bin/env bash
# Time from SIGTERM to exit of a built examples/hello (plaintext + TLS
# listeners), idle or under `wrk -t2 -c32`, and what wrk saw: "read" errors
# are requests that got EOF or a reset with no response; "write" errors are
# wrk's reconnects to the closed port after the drain.
#   usage: shutdown-time.sh ./hello [load]
set -u
BIN=$1; MODE=${2:-idle}
P=${PORT:-21080}; T=$((P + 363))
"$BIN" -addr 127.0.0.1:$P -tls-addr 127.0.0.1:$T >/dev/null 2>&1 &
PID=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$P/ && break; sleep 0.1; done
if [ "$MODE" = load ]; then
  wrk -t2 -c32 -d4s http://127.0.0.1:$P/ >/tmp/shutdown-time.wrk 2>&1 &
  WPID=$!
  sleep 2
else
  curl -s -o /dev/null http://127.0.0.1:$P/
  curl -sk -o /dev/null https://127.0.0.1:$T/
fi
T0=$(date +%s%N); kill -TERM $PID; wait $PID; RC=$?; T1=$(date +%s%N)
echo "$MODE: exit code $RC, $(( (T1 - T0) / 1000000 )) ms after SIGTERM"
if [ "$MODE" = load ]; then wait $WPID; grep -E "requests in|Socket errors" /tmp/shutdown-time.wrk; fi
