// Command wsbare is the ceiling of gwist's WebSocket echo benchmark: bare
// gnet v2 (multicore, SO_REUSEPORT) that answers any request head having a
// Sec-WebSocket-Key with a 101 and then echoes every data frame, unmasked,
// from the event loop. It checks nothing else (no path, method, version,
// UTF-8, fragmentation or size limits): it only measures what the reactor
// and the kernel cost, for the idle and echo workloads.
//
// With -workers N it is the ceiling of an echo on workers instead: the loop
// parses each read's frames and hands their echo to one of N goroutines
// (one buffered channel), which writes it to the socket itself with a raw
// write(2), as gwist's direct path does: one hand-off per message and
// nothing else. That is only sound for this benchmark's clients: echoes of
// one connection may be reordered when it has several messages in flight,
// what the socket does not take is dropped, and a write may race with the
// loop closing the descriptor.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"syscall"
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/logging"

	"github.com/gwist/gwist/benchmarks/internal/serve"
	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

// maxFrame bounds a frame's payload; larger ones close the connection.
const maxFrame = 1 << 20

type handler struct {
	gnet.BuiltinEventEngine
	addr string
	// echoes is the workers' queue (-workers); nil: the loop writes.
	echoes chan echo
}

// echo is a worker's job: frames to write to a socket.
type echo struct {
	fd  int
	out []byte
}

// writeEchoes is a worker: it writes each job's frames with a raw write(2)
// (no runtime bookkeeping, as gwist's writeFD for short writes).
func writeEchoes(jobs <-chan echo) {
	for e := range jobs {
		_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(e.fd), uintptr(unsafe.Pointer(&e.out[0])), uintptr(len(e.out)))
	}
}

// upgraded marks a connection past its handshake (its context).
type upgraded struct{}

func (h *handler) OnBoot(gnet.Engine) gnet.Action {
	serve.Announce("http", h.addr)
	return gnet.None
}

func (h *handler) OnTraffic(c gnet.Conn) gnet.Action {
	data, _ := c.Peek(-1)
	used, out, ok := 0, []byte(nil), true
	if c.Context() == nil {
		i := bytes.Index(data, []byte("\r\n\r\n"))
		if i < 0 {
			if len(data) > 8<<10 {
				return gnet.Close
			}
			return gnet.None
		}
		key := headerValue(data[:i], "sec-websocket-key")
		if key == "" {
			return gnet.Close
		}
		out = append(out, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "...)
		out = append(out, wsclient.AcceptKey(key)...)
		out = append(out, "\r\n\r\n"...)
		c.SetContext(upgraded{})
		used = i + 4
	}
	for ok {
		var n int
		n, out, ok = echoFrame(data[used:], out)
		used += n
		if n == 0 {
			break
		}
	}
	_, _ = c.Discard(used)
	if h.echoes != nil && len(out) > 0 && ok {
		h.echoes <- echo{fd: c.Fd(), out: out}
		return gnet.None
	}
	if len(out) > 0 {
		if _, err := c.Write(out); err != nil {
			return gnet.Close
		}
	}
	if !ok {
		return gnet.Close
	}
	return gnet.None
}

// echoFrame takes one masked client frame from b and appends its echo (or
// the pong of a ping) to out; n is 0 when b holds no whole frame, ok false
// for a close frame or an invalid one.
func echoFrame(b, out []byte) (n int, _ []byte, ok bool) {
	if len(b) < 2 {
		return 0, out, true
	}
	if b[1]&0x80 == 0 {
		return 0, out, false
	}
	op, size, head := b[0]&0x0F, uint64(b[1]&0x7F), 2
	switch size {
	case 126:
		if len(b) < 4 {
			return 0, out, true
		}
		size, head = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return 0, out, true
		}
		size, head = binary.BigEndian.Uint64(b[2:]), 10
	}
	if size > maxFrame {
		return 0, out, false
	}
	end := head + 4 + int(size)
	if len(b) < end {
		return 0, out, true
	}
	key, p := b[head:head+4], b[head+4:end]
	switch op {
	case 0x8:
		return end, append(out, 0x88, 0), false
	case 0xA:
		return end, out, true
	case 0x9:
		op = 0xA
	}
	out = append(out, 0x80|op)
	switch {
	case size < 126:
		out = append(out, byte(size))
	case size <= 0xFFFF:
		out = append(out, 126, byte(size>>8), byte(size))
	default:
		out = append(out, 127)
		out = binary.BigEndian.AppendUint64(out, size)
	}
	for i, c := range p {
		out = append(out, c^key[i&3])
	}
	return end, out, true
}

// headerValue finds a header's value in a request head (name lower-case).
func headerValue(head []byte, name string) string {
	for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
		k, v, ok := bytes.Cut(line, []byte(":"))
		if ok && string(bytes.ToLower(bytes.TrimSpace(k))) == name {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	workers := flag.Int("workers", 0, "echo from this many worker goroutines, each message handed over once (0: from the loop)")
	loops := flag.Int("loops", 0, "event loops (0: one per core)")
	flag.Parse()
	h := &handler{addr: *addr}
	if *workers > 0 {
		h.echoes = make(chan echo, 4096)
		for range *workers {
			go writeEchoes(h.echoes)
		}
	}
	proto := "tcp://" + *addr
	go func() {
		serve.WaitSignal()
		_ = gnet.Stop(context.Background(), proto)
	}()
	err := gnet.Run(h, proto,
		gnet.WithMulticore(true),
		gnet.WithNumEventLoop(*loops),
		gnet.WithReusePort(true),
		gnet.WithLogLevel(logging.ErrorLevel))
	if err != nil {
		serve.Fatal("wsbare", err)
	}
}
