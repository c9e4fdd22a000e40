// Command wshalfclose is a WebSocket client that sends n binary messages
// to an echo route, shuts its write side (a FIN, with no close frame) and
// counts the echoed bytes that still arrive, reading slowly through a
// small receive buffer. It compares what servers do with WebSocket output
// owed at a peer's half-close (docs/operations.md, "A client's
// half-close"; RFC 6455 treats a TCP close without a close frame as an
// abnormal closure and says nothing of a half-close).
//
//	wshalfclose -addr 127.0.0.1:8080 [-path /ws] [-n 32] [-size 262144]
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "server address")
	path := flag.String("path", "/ws", "echo route")
	n := flag.Int("n", 32, "messages sent before the FIN")
	size := flag.Int("size", 256<<10, "bytes per message")
	flag.Parse()
	ap, err := netip.ParseAddrPort(*addr)
	if err != nil {
		fatal(err)
	}
	dst, err := wsclient.Sockaddr(ap)
	if err != nil {
		fatal(err)
	}
	fd, rest, err := wsclient.Dial(nil, dst, *addr, *path, 10*time.Second)
	if err != nil {
		fatal(err)
	}
	defer unix.Close(fd)
	// What the server cannot send waits on its side, not in this kernel.
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 64<<10)

	msg := bytes.Repeat([]byte{'x'}, *size)
	var out []byte
	for range *n {
		out = wsclient.AppendMasked(out[:0], 0x2, msg, [4]byte{1, 2, 3, 4})
		if err := wsclient.WriteAll(fd, out); err != nil {
			fatal(fmt.Errorf("write: %w", err))
		}
	}
	if err := unix.Shutdown(fd, unix.SHUT_WR); err != nil {
		fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the server reads the FIN while its echoes wait

	buf, got, closeFrame := rest, 0, false
	chunk := make([]byte, 16<<10)
	var rerr error
	for {
		for {
			f, used, err := wsclient.Parse(buf)
			if err != nil {
				fatal(err)
			}
			if used == 0 {
				break
			}
			switch f.Op {
			case 0x0, 0x1, 0x2:
				got += len(f.Payload)
			case 0x8:
				closeFrame = true
			}
			buf = buf[used:]
		}
		r, err := unix.Read(fd, chunk)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || r == 0 {
			rerr = err
			break
		}
		buf = append(buf, chunk[:r]...)
		time.Sleep(time.Millisecond) // a slow reader
	}
	end := "EOF"
	if rerr != nil {
		end = rerr.Error()
	}
	fmt.Printf("%s: %d of %d bytes echoed, close frame %v, then %s\n", *addr, got, *n**size, closeFrame, end)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "wshalfclose:", err)
	os.Exit(1)
}
