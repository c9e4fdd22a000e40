#!/usr/bin/env bash
# Alternating A/B of HTTP servers under `wrk -t2 -c64`: each round runs every
# server once in the order given; prints req/s and the server's CPU per
# request (utime+stime from /proc/PID/stat). Take medians over rounds.
#   usage: ab-wrk.sh ROUNDS DURATION PATH|pipe name=binary[:extra args] ...
#   e.g.:  ab-wrk.sh 5 6s pipe new=/tmp/hello old=/tmp/hello-old fasthttp=benchmarks/bin/fasthttp
#          ab-wrk.sh 6 5s /json new=/tmp/hello old=/tmp/hello-old
#   "pipe" sends 16 pipelined GET / per write (the suite's pipelined workload).
#   env: PORT (first server's port, default 22300; the next ones follow)
set -u
R=$1; D=$2; WHAT=$3; shift 3
TCK=$(getconf CLK_TCK)
LUA=$(mktemp --suffix .lua)
cat > "$LUA" <<'LUA'
init = function(args)
  local r = {}
  for i = 1, 16 do r[i] = wrk.format(nil, "/") end
  req = table.concat(r)
end
request = function() return req end
LUA
declare -A PORT PID
i=0
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}; bin=${rest%%:*}; args=""; [[ $rest == *:* ]] && args=${rest#*:}
  port=$(( ${PORT:-22300} + i )); i=$((i + 1)); PORT[$name]=$port
  # shellcheck disable=SC2086
  "$bin" -addr 127.0.0.1:$port $args >/dev/null 2>&1 & PID[$name]=$!
done
trap 'for p in "${PID[@]}"; do kill $p 2>/dev/null; done; rm -f "$LUA"' EXIT
sleep 1
for r in $(seq "$R"); do
  for spec in "$@"; do
    name=${spec%%=*}; port=${PORT[$name]}; pid=${PID[$name]}
    if [ "$WHAT" = pipe ]; then S=(-s "$LUA"); P=/; else S=(); P=$WHAT; fi
    c0=$(awk '{print $14+$15}' /proc/$pid/stat)
    out=$(wrk -t2 -c64 -d"$D" "${S[@]}" "http://127.0.0.1:$port$P" 2>&1)
    c1=$(awk '{print $14+$15}' /proc/$pid/stat)
    rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
    reqs=$(echo "$out" | awk '/requests in/{print $1}')
    us=$(echo "($c1-$c0)*1000000/$TCK/$reqs" | bc -l | cut -c1-5)
    echo "$name round $r: $rps req/s, server $us us/req"
  done
done
