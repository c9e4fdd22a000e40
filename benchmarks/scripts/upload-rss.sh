#!/usr/bin/env bash
# POST /upload of a large body (default 256 MiB of random bytes) to a built
# examples/hello, once with a Content-Length and once chunked (curl -T), and
# report whether the sha256 the server computed matches, the time, and the
# server's RSS growth: its peak RSS during the upload (VmHWM, reset before
# each run through clear_refs) minus its RSS before.
#   usage: upload-rss.sh ./hello [MiB]
set -eu
BIN=$1; MIB=${2:-256}
P=${PORT:-21180}
"$BIN" -addr 127.0.0.1:$P >/dev/null 2>&1 &
PID=$!
F=$(mktemp)
trap 'kill $PID 2>/dev/null; rm -f "$F"' EXIT
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$P/ && break; sleep 0.1; done
head -c $((MIB << 20)) /dev/urandom >"$F"
WANT=$(sha256sum "$F" | cut -d' ' -f1)
kib() { awk -v k="$1" '$1 == k":" {print $2}' /proc/$PID/status; }
for mode in length chunked; do
  echo 5 >/proc/$PID/clear_refs # VmHWM := VmRSS
  before=$(kib VmRSS)
  t0=$(date +%s%N)
  if [ $mode = length ]; then
    out=$(curl -sS -X POST -T "$F" http://127.0.0.1:$P/upload)
  else
    out=$(curl -sS -X POST -T - http://127.0.0.1:$P/upload <"$F")
  fi
  t1=$(date +%s%N)
  peak=$(kib VmHWM)
  case $out in
    *"\"bytes\":$((MIB << 20)),\"sha256\":\"$WANT\""*) ok="sha256 matches" ;;
    *) ok="MISMATCH: $out" ;;
  esac
  echo "$mode: $MIB MiB in $(( (t1 - t0) / 1000000 )) ms, $ok; server RSS $before KiB before, peak $peak KiB, growth $((peak - before)) KiB"
done
