#!/usr/bin/env bash
# Issue 21's hostile-client attacks, one at a time, each against a fresh
# server: a built examples/hello (gwist) and/or servers/hostileref (net/http
# + gorilla/websocket), with cmd/hostile's live client and RSS sampling.
# Every run's table goes to stdout (and to $OUT/<server>-<attack>.md).
#   usage: hostile.sh HELLO_BIN|- HOSTILEREF_BIN|- HOSTILE_BIN [ATTACK...]
#   ATTACK: ping-flood ping-flood-read ws-noread h2-stall (default: all four)
#   env: PORT (21190), AFTER (60s), OUT (a temporary directory),
#        and per attack DUR_<attack> / ARGS_<attack> (dashes as underscores)
# Default sizes are the issue's: ping floods 1 connection for 10 s, ws-noread
# 2,000 connections x 16 x 64 KiB for 20 s, h2-stall 11 connections x 100
# streams for 40 s. Runs are sequential: never two load runs at once.
set -eu
HELLO=$1; REF=$2; HOSTILE=$3; shift 3
ATTACKS=${*:-ping-flood ping-flood-read ws-noread h2-stall}
P=${PORT:-21190}
AFTER=${AFTER:-60s}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
default_dur() { case $1 in ping-flood*) echo 10s ;; ws-noread) echo 20s ;; h2-stall) echo 40s ;; esac; }

run_one() { # server-name binary attack
  local name=$1 bin=$2 attack=$3 var=${3//-/_}
  local dur_var=DUR_$var args_var=ARGS_$var
  local dur=${!dur_var:-$(default_dur "$attack")} args=${!args_var:-}
  local log
  log=$(mktemp)
  "$bin" -addr 127.0.0.1:$P >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
  echo "== $name $attack: $HOSTILE -attack $attack -target 127.0.0.1:$P -pid $pid -duration $dur -after $AFTER $args" >&2
  # shellcheck disable=SC2086
  "$HOSTILE" -attack "$attack" -target 127.0.0.1:$P -pid $pid -duration "$dur" -after "$AFTER" $args |
    tee "$OUT/$name-$attack.md"
  kill $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  rm -f "$log"
  sleep 2 # let the sockets of the last run go
}

for attack in $ATTACKS; do
  [ "$HELLO" = - ] || run_one gwist "$HELLO" "$attack"
  [ "$REF" = - ] || run_one hostileref "$REF" "$attack"
done
echo "tables in $OUT" >&2
