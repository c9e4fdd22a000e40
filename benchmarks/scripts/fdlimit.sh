#!/usr/bin/env bash
# The descriptor-exhaustion scenario of the hardening issue, against a built
# examples/hello: the server runs under `ulimit -n 256` (soft = hard), 400
# clients connect and hold their connections; then one early connection is
# used, every held one sends a request, all close, and GET / must work on
# both listeners again; SIGTERM must exit 0.
#   usage: fdlimit.sh ./hello [extra flags for hello, e.g. -max-conns 100000]
set -u
BIN=$1; shift
P=${PORT:-21080}; T=$((P + 363))
( ulimit -n 256; exec "$BIN" -addr 127.0.0.1:$P -tls-addr 127.0.0.1:$T "$@" ) >/dev/null 2>/tmp/fdlimit.err &
PID=$!
for _ in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:$P/ && break; sleep 0.1; done
python3 - "$P" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
conns = []
for _ in range(400):
    try:
        conns.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        pass
time.sleep(1)
served = 0
for i, s in enumerate(conns):
    try:
        s.settimeout(2)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        if s.recv(100).startswith(b"HTTP/1.1 200"):
            served += 1
        elif i == 0:
            print("first connection: no 200")
    except OSError as e:
        if i == 0:
            print("first connection:", e)
print("connected %d of 400, served %d" % (len(conns), served))
for s in conns:
    s.close()
PY
sleep 1
echo "plaintext after: $(curl -s -m 3 -o /dev/null -w '%{http_code}' http://127.0.0.1:$P/)"
echo "TLS after: $(curl -sk -m 3 -o /dev/null -w '%{http_code}' https://127.0.0.1:$T/)"
echo "ports listening: $(ss -ltn | grep -c ":$P \|:$T ")"
kill -TERM $PID; wait $PID; echo "exit code $?"
echo "log lines: $(wc -l < /tmp/fdlimit.err)"; head -3 /tmp/fdlimit.err
