#!/usr/bin/env python3
"""Count the one-shot clients that get their response when they half-close.

Each client connects, sends one request and at once shuts its write side
(shutdown(SHUT_WR), as `nc -N` or `printf ... | nc` do), then reads until
EOF. Over TLS the request goes right behind the client's handshake, and the
FIN is sent on the TCP socket without a close_notify.

    usage: halfclose.py PORT [TLS_PORT] [N]   (a server serving GET / with 200)
"""
import os
import socket
import ssl
import sys

REQUESTS = {
    "HTTP/1.0": b"GET / HTTP/1.0\r\n\r\n",
    "Connection: close": b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "keep-alive": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
}


def one(port, req, tls_ctx):
    raw = socket.create_connection(("127.0.0.1", port))
    s = tls_ctx.wrap_socket(raw) if tls_ctx else raw
    try:
        s.sendall(req)
        # A duplicate of the descriptor, so that SSLSocket sends no close_notify.
        d = socket.socket(fileno=os.dup(s.fileno()))
        d.shutdown(socket.SHUT_WR)
        d.close()
        s.settimeout(2)
        data = b""
        while True:
            b = s.recv(65536)
            if not b:
                break
            data += b
    except OSError:
        pass
    finally:
        s.close()
    return b" 200 " in data[:20]


def main():
    port = int(sys.argv[1])
    tls_port = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] != "-" else 0
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    for name, req in REQUESTS.items():
        ok = sum(one(port, req, None) for _ in range(n))
        line = f"{name:18s} plaintext {ok}/{n}"
        if tls_port:
            ok = sum(one(tls_port, req, ctx) for _ in range(n))
            line += f"   TLS {ok}/{n}"
        print(line)


if __name__ == "__main__":
    main()
