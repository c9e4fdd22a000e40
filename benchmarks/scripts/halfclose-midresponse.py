#!/usr/bin/env python3
"""Count the clients that get a large response whole when they half-close
in the middle of it.

Each client connects with a 64 KiB receive buffer, sends one request for
PATH, reads the response's first bytes, waits 100 ms (the server's writes
fill what the socket takes), shuts its write side (shutdown(SHUT_WR): a FIN)
and reads on to the end of the body. A server that closes at the FIN sends
only what it had handed to the kernel.

    usage: halfclose-midresponse.py PORT PATH SIZE [N]
    e.g.   head -c 33554432 /dev/urandom > /tmp/www/big.bin
           go run ./examples/hello -static-dir /tmp/www &
           halfclose-midresponse.py 8080 /static/big.bin 33554432 10
"""
import socket
import statistics
import sys
import time


def one(port, req, size, keep_alive):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.connect(("127.0.0.1", port))
    s.settimeout(10)
    try:
        s.sendall(req)
        head = s.recv(65536)
        time.sleep(0.1)
        s.shutdown(socket.SHUT_WR)
        start = head.find(b"\r\n\r\n") + 4
        total = len(head)
        while not (keep_alive and total - start >= size):
            b = s.recv(1 << 20)
            if not b:
                break
            total += len(b)
        return total - start
    except OSError:
        return total - start
    finally:
        s.close()


def main():
    port, path, size = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    kinds = {
        "keep-alive": f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n",
        "Connection: close": f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "HTTP/1.0": f"GET {path} HTTP/1.0\r\n\r\n",
    }
    for name, req in kinds.items():
        got = [one(port, req.encode(), size, name == "keep-alive") for _ in range(n)]
        whole = sum(g == size for g in got)
        print(f"{name}: {whole}/{n} whole, median body {statistics.median(got) / 1048576:.1f} MiB")


if __name__ == "__main__":
    main()
