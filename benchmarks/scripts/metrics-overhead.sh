#!/usr/bin/env bash
# Cost of the metrics package: one examples/hello binary started twice,
# with metrics (-metrics=true, /metrics scraped once a second with curl
# while its rounds run) and without (-metrics=false: no observer, no
# /metrics route). Alternating rounds of `wrk -t2 -c64` on a plaintext
# route; prints req/s and the server's CPU per request (utime+stime from
# /proc/PID/stat, the scrapes' CPU included in "on"), then the medians.
#   usage: metrics-overhead.sh ROUNDS DURATION [PATH] [BINARY]
#   e.g.:  go build -o /tmp/hello ./examples/hello
#          benchmarks/scripts/metrics-overhead.sh 8 5s / /tmp/hello
#   env: PORT (default 22400; "off" listens on PORT+1), EXTRA (more flags for both)
set -u
R=$1; D=$2; P=${3:-/}; BIN=${4:-/tmp/hello}
TCK=$(getconf CLK_TCK)
BASE=${PORT:-22400}
declare -A PORTS=([on]=$BASE [off]=$((BASE + 1))) PID
# shellcheck disable=SC2086
"$BIN" -addr 127.0.0.1:${PORTS[on]} -metrics=true ${EXTRA:-} >/dev/null 2>&1 & PID[on]=$!
# shellcheck disable=SC2086
"$BIN" -addr 127.0.0.1:${PORTS[off]} -metrics=false ${EXTRA:-} >/dev/null 2>&1 & PID[off]=$!
SCRAPER=""
trap 'kill ${PID[on]} ${PID[off]} $SCRAPER 2>/dev/null' EXIT
sleep 1
curl -fsS "http://127.0.0.1:${PORTS[on]}/metrics" >/dev/null || { echo "no /metrics on the 'on' server" >&2; exit 1; }
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORTS[off]}/metrics" | grep -q 404 || { echo "'off' server has /metrics" >&2; exit 1; }
declare -A RPS US
for r in $(seq "$R"); do
  order="on off"; [ $((r % 2)) -eq 0 ] && order="off on"
  for name in $order; do
    port=${PORTS[$name]}; pid=${PID[$name]}
    if [ "$name" = on ]; then
      ( while :; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep 1; done ) & SCRAPER=$!
    fi
    c0=$(awk '{print $14+$15}' /proc/$pid/stat)
    out=$(wrk -t2 -c64 -d"$D" "http://127.0.0.1:$port$P" 2>&1)
    c1=$(awk '{print $14+$15}' /proc/$pid/stat)
    if [ -n "$SCRAPER" ]; then kill $SCRAPER 2>/dev/null; wait $SCRAPER 2>/dev/null; SCRAPER=""; fi
    rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
    reqs=$(echo "$out" | awk '/requests in/{print $1}')
    us=$(echo "($c1-$c0)*1000000/$TCK/$reqs" | bc -l | cut -c1-5)
    RPS[$name]="${RPS[$name]:-} $rps"; US[$name]="${US[$name]:-} $us"
    echo "$name round $r: $rps req/s, server $us us/req ($(cut -d' ' -f1 /proc/loadavg) load)"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for name in on off; do
  echo "$name median: $(echo "${RPS[$name]}" | median) req/s, $(echo "${US[$name]}" | median) us/req (per round: ${US[$name]})"
done
echo "on/off CPU per request: $(echo "$(echo "${US[on]}" | median) / $(echo "${US[off]}" | median)" | bc -l | cut -c1-6) (ratio of medians)"
# Each round's on/off ratio (the two ran back to back, under the same load).
read -ra on_us <<<"${US[on]}"; read -ra off_us <<<"${US[off]}"
ratios=""; for i in "${!on_us[@]}"; do ratios="$ratios $(echo "${on_us[$i]}/${off_us[$i]}" | bc -l | cut -c1-6)"; done
echo "per-round on/off:$ratios; median $(echo "$ratios" | median)"
