#!/usr/bin/env bash
# Static file serving, gwist's Static against net/http's http.FileServer:
# one 1 MiB file, `wrk -t2 -c64 -d10s`, both servers started once and
# measured in alternating rounds (gwist, nethttp, gwist, nethttp, ...),
# with each server's CPU time per request from /proc/PID/stat. wrk shares
# the machine with the servers: compare the two rows, not the absolutes.
#   usage: benchmarks/scripts/static-file.sh [rounds] [duration]
#   env:   PORT (default 21500; gwist on PORT, nethttp on PORT+1), SIZE (bytes, default 1048576),
#          GWIST_ARGS (extra flags for examples/hello, e.g. -inline)
set -euo pipefail
ROUNDS=${1:-3}; DUR=${2:-10s}
P=${PORT:-21500}; SIZE=${SIZE:-1048576}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d); trap 'kill $GPID $NPID 2>/dev/null || true; rm -rf "$WORK"' EXIT
command -v wrk >/dev/null || { echo "wrk not found (apt-get install -y wrk)"; exit 1; }

(cd "$ROOT" && go build -o "$WORK/hello" ./examples/hello)
(cd "$ROOT/benchmarks" && go build -o "$WORK/nethttp" ./servers/nethttp)
mkdir "$WORK/www"
head -c "$SIZE" /dev/urandom > "$WORK/www/file.bin"

"$WORK/hello" -addr 127.0.0.1:$P -static-dir "$WORK/www" ${GWIST_ARGS:-} >"$WORK/gwist.log" 2>&1 & GPID=$!
"$WORK/nethttp" -addr 127.0.0.1:$((P + 1)) -tls-addr "" -static-dir "$WORK/www" >"$WORK/nethttp.log" 2>&1 & NPID=$!
for port in $P $((P + 1)); do
  for _ in $(seq 100); do curl -sf -o /dev/null http://127.0.0.1:$port/static/file.bin && break; sleep 0.1; done
  curl -sf http://127.0.0.1:$port/static/file.bin | cmp - "$WORK/www/file.bin"
done

TCK=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' /proc/$1/stat; } # utime + stime, in clock ticks
run() { # name pid port -> "req/s MB/s p50 p99 cpu_us_per_req"
  local c0 c1 out reqs
  c0=$(cpu "$2")
  out=$(wrk -t2 -c64 -d"$DUR" --latency http://127.0.0.1:$3/static/file.bin)
  c1=$(cpu "$2")
  echo "$out" >>"$WORK/$1.wrk"
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$out" | awk -v reqs="$reqs" -v dc=$((c1 - c0)) -v tck="$TCK" '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    function mb(v) { if (v ~ /GB$/) return v * 1024; if (v ~ /MB$/) return v + 0; if (v ~ /KB$/) return v / 1024; return v }
    /Requests\/sec/ { rps = $2 } /Transfer\/sec/ { tr = mb($2) } / 50%/ { p50 = ms($2) } / 99%/ { p99 = ms($2) }
    /Non-2xx|Socket errors/ { err = err " [" $0 "]" }
    END { printf "%.0f %.0f %.2f %.2f %.0f%s\n", rps, tr, p50, p99, (reqs > 0 ? dc / tck * 1e6 / reqs : 0), err }'
}
declare -A RES
for r in $(seq "$ROUNDS"); do
  RES[gwist]+="$(run gwist $GPID $P)"$'\n'
  RES[nethttp]+="$(run nethttp $NPID $((P + 1)))"$'\n'
done
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
echo "# wrk -t2 -c64 -d$DUR http://127.0.0.1:PORT/static/file.bin ($SIZE bytes), $ROUNDS alternating rounds, $(nproc) CPUs shared with wrk"
echo "# per round: req/s MB/s p50_ms p99_ms server_cpu_us_per_req"
for s in gwist nethttp; do
  echo "$s:"; printf '%s' "${RES[$s]}" | sed 's/^/  /'
done
printf '%-8s %10s %8s %8s %8s %14s\n' server "req/s" "MB/s" "p50 ms" "p99 ms" "CPU us/req"
for s in gwist nethttp; do
  cols=()
  for i in 1 2 3 4 5; do cols+=("$(printf '%s' "${RES[$s]}" | awk -v i=$i 'NF {print $i}' | median)"); done
  printf '%-8s %10s %8s %8s %8s %14s\n' "$s" "${cols[@]}"
done
