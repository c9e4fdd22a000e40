# Sourced by tls-churn-ab.sh and tls-churn-sched.sh.
#
# start_tls_server NAME BINARY PORT starts a server on 127.0.0.1:PORT with
# GOMAXPROCS=2 and sets pid, then waits for it to listen and warms it with
# `tlsbench -t 8 -n 1000 -nodelay`. NAME gwist* runs BINARY as
# examples/hello (plaintext on PORT-1); any other as a peer server
# (plaintext off). Extra environment for the server comes from SERVER_ENV
# (e.g. SERVER_ENV="BENCH_TRACE_FILE=/tmp/t.out").
start_tls_server() {
	local name=$1 bin=$2 port=$3 bench
	bench=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/tlsbench
	case $name in
	gwist*) env ${SERVER_ENV:-} GOMAXPROCS=2 "$bin" -addr 127.0.0.1:$((port - 1)) -tls-addr 127.0.0.1:$port >/dev/null 2>&1 & ;;
	*) env ${SERVER_ENV:-} GOMAXPROCS=2 "$bin" -addr "" -tls-addr 127.0.0.1:$port >/dev/null 2>&1 & ;;
	esac
	pid=$!
	sleep 0.8
	"$bench" -addr 127.0.0.1:$port -t 8 -n 1000 -nodelay >/dev/null 2>&1
}
