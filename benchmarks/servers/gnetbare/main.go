// Command gnetbare is the ceiling of the gwist benchmarks: a bare gnet v2
// server (multicore, SO_REUSEPORT) that answers every request head it sees
// with the same canned "200 OK, Hello, World!" response, whatever the path.
// It counts requests by finding "\r\n\r\n" and parses nothing else, so it
// only makes sense for GET workloads over plaintext.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strconv"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/logging"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

const batchSize = 64

var (
	response = []byte("HTTP/1.1 200 OK\r\nServer: gnetbare\r\nContent-Type: " + serve.TextType +
		"\r\nContent-Length: " + strconv.Itoa(len(serve.HelloBody)) + "\r\n\r\n" + serve.HelloBody)
	batch = bytes.Repeat(response, batchSize)
)

// handler is the gnet event handler; a connection's context holds how many
// bytes of the head terminator its last read ended with.
type handler struct {
	gnet.BuiltinEventEngine
	addr string
}

func (h *handler) OnBoot(gnet.Engine) gnet.Action {
	serve.Announce("http", h.addr)
	return gnet.None
}

func (h *handler) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	c.SetContext(0)
	return nil, gnet.None
}

func (h *handler) OnTraffic(c gnet.Conn) gnet.Action {
	data, err := c.Next(-1)
	if err != nil {
		return gnet.Close
	}
	state, _ := c.Context().(int)
	n, state := countHeads(data, state)
	c.SetContext(state)
	for n > 0 {
		k := min(n, batchSize)
		if _, err := c.Write(batch[:k*len(response)]); err != nil {
			return gnet.Close
		}
		n -= k
	}
	return gnet.None
}

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	flag.Parse()
	if f.TLSAddr != "" {
		serve.Fatal("gnetbare", errors.New("plaintext only: -tls-addr is not supported"))
	}
	if f.Addr == "" {
		serve.Fatal("gnetbare", errors.New("-addr is empty"))
	}
	proto := "tcp://" + f.Addr
	go func() {
		serve.WaitSignal()
		_ = gnet.Stop(context.Background(), proto)
	}()
	err := gnet.Run(&handler{addr: f.Addr}, proto,
		gnet.WithMulticore(true),
		gnet.WithReusePort(true),
		gnet.WithLogLevel(logging.ErrorLevel))
	if err != nil {
		serve.Fatal("gnetbare", err)
	}
}
