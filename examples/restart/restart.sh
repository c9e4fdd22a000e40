#!/usr/bin/env bash
# Zero-downtime restart of a gwist server whose listeners set SO_REUSEPORT
# (gwist.ReusePort(); examples/hello's -reuseport flag).
#
#   restart.sh OLD_PID READY_URL NEW_COMMAND [ARGS...]
#
# 1. Starts NEW_COMMAND in the background. It binds the same addresses as the
#    old process, with SO_REUSEPORT too: from then on the kernel spreads new
#    connections over both.
# 2. Waits until READY_URL answers 200: the new process's own /readyz, on an
#    address only it listens on (examples/hello's -health-addr), since a probe
#    of the shared address may reach either process. Gives up after
#    READY_TIMEOUT seconds (default 30): the new process is killed, the old
#    one keeps serving, exit 1.
# 3. Sends SIGTERM to OLD_PID, which drains (readiness off, listener closed,
#    keep-alive clients told Connection: close, requests in flight finished)
#    and waits up to DRAIN_TIMEOUT seconds (default 60) for it to exit.
#
# Prints the new process's PID on stdout; its output goes to NEW_LOG
# (default /dev/null). On Linux, set net.ipv4.tcp_migrate_req=1 as well:
# connections still queued on the old listener when it closes are then moved
# to the new one instead of being reset (rare: clients with keep-alive open
# connections only when the old process closes theirs, after its listener).
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 OLD_PID READY_URL NEW_COMMAND [ARGS...]" >&2
	exit 2
fi
old_pid=$1 ready_url=$2
shift 2
command -v curl >/dev/null || { echo "restart.sh: curl is needed" >&2; exit 2; }
kill -0 "$old_pid" 2>/dev/null || { echo "restart.sh: no process $old_pid" >&2; exit 2; }

"$@" >"${NEW_LOG:-/dev/null}" 2>&1 &
new_pid=$!

deadline=$((SECONDS + ${READY_TIMEOUT:-30}))
until curl -fsS -o /dev/null --max-time 1 "$ready_url" 2>/dev/null; do
	if ! kill -0 "$new_pid" 2>/dev/null; then
		echo "restart.sh: the new process exited before it was ready" >&2
		exit 1
	fi
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "restart.sh: $ready_url not ready in ${READY_TIMEOUT:-30}s; keeping the old process" >&2
		kill "$new_pid" 2>/dev/null || true
		exit 1
	fi
	sleep 0.05
done

kill -TERM "$old_pid"
deadline=$((SECONDS + ${DRAIN_TIMEOUT:-60}))
while kill -0 "$old_pid" 2>/dev/null; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		echo "restart.sh: process $old_pid still draining after ${DRAIN_TIMEOUT:-60}s" >&2
		exit 1
	fi
	sleep 0.05
done
echo "$new_pid"
