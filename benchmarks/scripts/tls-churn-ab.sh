#!/usr/bin/env bash
# TLS churn with NODELAY clients (issue 26's item 4) in alternating rounds:
# `tlsbench -t 8 -n N -nodelay` after `-n 1000`, each server started anew
# per round (the order turns each round), GOMAXPROCS=2, the client on the
# same cores. Per run: server CPU per connection (/proc/PID/stat), client
# CPU per connection (/usr/bin/time), the machine's idle share (/proc/stat)
# and tlsbench's conn/s and phase medians; tls-churn-ab.py prints medians
# and each server's ratios to the last one named.
#   usage: benchmarks/scripts/tls-churn-ab.sh ROUNDS OUT NAME=BINARY [NAME=BINARY ...]
#   NAME gwist* runs BINARY as examples/hello (-addr and -tls-addr); any
#   other runs it as a peer server (-addr "" -tls-addr). Build first:
#   go build -o bin/ ./servers/... ./tlsbench (in benchmarks/), and
#   examples/hello. env: N (default 6000), PORT (default 29443)
set -euo pipefail
R=$1; OUT=$2; shift 2; specs=("$@"); n=${#specs[@]}
N=${N:-6000}; P=${PORT:-29443}
BENCH=$(cd "$(dirname "$0")/.." && pwd)/bin/tlsbench
. "$(dirname "$0")/tls-churn-lib.sh"
: > "$OUT"
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
idle() { awk '/^cpu /{print $5+$6, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
for r in $(seq 1 "$R"); do
	for k in $(seq 0 $((n - 1))); do
		spec=${specs[$(((k + r) % n))]}; name=${spec%%=*}; bin=${spec#*=}
		start_tls_server "$name" "$bin" "$P"
		c0=$(cpu $pid); i0=$(idle)
		res=$(/usr/bin/time -f "%U %S" -o "$OUT.time" "$BENCH" -addr 127.0.0.1:$P -t 8 -n "$N" -nodelay -json 2>&1)
		c1=$(cpu $pid); i1=$(idle)
		kill $pid; wait $pid 2>/dev/null || true
		idlefrac=$(echo "$i0 $i1" | awk '{printf "%.4f", ($3-$1)/($4-$2)}')
		echo "$r $name $((c1 - c0)) $(tr ' ' , < "$OUT.time"),$idlefrac $res" >> "$OUT"
	done
done
rm -f "$OUT.time"
python3 "$(dirname "$0")/tls-churn-ab.py" "$OUT" $(for s in "${specs[@]}"; do echo "${s%%=*}"; done)
