#!/usr/bin/env bash
# gzip on a 100 KB JSON body: gwist with middleware.Gzip against net/http
# with the same compress/gzip middleware (servers/gzipjson), under
# `wrk -t2 -c32` with Accept-Encoding: gzip, alternating A B A B, ROUNDS
# rounds of DUR each; prints each run and the medians. wrk shares the
# machine with the servers.
#   usage: benchmarks/scripts/gzip-json.sh   (ROUNDS=3 DUR=5s PORT=21500)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}; DUR=${DUR:-5s}; P=${PORT:-21500}
BIN=$(mktemp -d)/gzipjson
go build -o "$BIN" ./servers/gzipjson
"$BIN" -impl gwist -addr 127.0.0.1:$P >/dev/null & A=$!
"$BIN" -impl nethttp -addr 127.0.0.1:$((P + 1)) >/dev/null & B=$!
trap 'kill $A $B 2>/dev/null' EXIT
for port in $P $((P + 1)); do
  for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$port/big && break; sleep 0.1; done
  size=$(curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' http://127.0.0.1:$port/big)
  plain=$(curl -s -H 'Accept-Encoding: gzip' http://127.0.0.1:$port/big | gzip -dc | wc -c)
  echo "port $port: $size bytes gzipped, $plain bytes plain"
done
run() { # name port -> "req/s MB/s"
  wrk -t2 -c32 -d"$DUR" -H 'Accept-Encoding: gzip' "http://127.0.0.1:$2/big" |
    awk -v n="$1" '/Requests\/sec/{r=$2} /Transfer\/sec/{t=$2} END{print n, r, t}'
}
: >"$BIN.out"
for i in $(seq "$ROUNDS"); do
  run gwist $P | tee -a "$BIN.out"
  run nethttp $((P + 1)) | tee -a "$BIN.out"
done
echo "medians (req/s, transfer/s):"
for n in gwist nethttp; do
  grep "^$n " "$BIN.out" | sort -k2 -n | awk -v n="$n" '{r[NR]=$2; t[NR]=$3} END{m=int((NR+1)/2); print n, r[m], t[m]}'
done
