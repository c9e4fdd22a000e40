package hostile

import (
	"context"
	"net"
	"time"

	"github.com/gwist/gwist/websocket"
)

// NoReadEchoConfig configures [NoReadEcho].
type NoReadEchoConfig struct {
	// Addr is the server's host:port.
	Addr string
	// Path is the echo route (default "/ws").
	Path string
	// Conns is the number of connections (default 1).
	Conns int
	// Messages is how many binary messages each connection sends (default 16).
	Messages int
	// Size is each message's payload in bytes (default 64 KiB).
	Size int
	// BlockTimeout is how long one write may make no progress before the
	// connection counts as blocked and stops writing (default 2 s).
	BlockTimeout time.Duration
	// DialParallel is how many connections are opened at once (default 64).
	DialParallel int
	// Duration bounds the attack (0: until ctx is done). The connections
	// stay open, unread, until then.
	Duration time.Duration
}

// NoReadConn is one connection's outcome.
type NoReadConn struct {
	// Written is the bytes of frames the kernel took before the writes
	// blocked (all of them when Complete).
	Written  int64
	Complete bool // every message was written
	// Blocked: a write made no progress for BlockTimeout, first seen at
	// BlockedAt (the blocking began BlockTimeout earlier).
	Blocked   bool
	BlockedAt time.Duration
	// WritesEndedAt is when the connection stopped pushing: its last
	// message written, or the start of the block.
	WritesEndedAt time.Duration
	// ClosedByServer: the server closed or reset the connection (a failed
	// write, or the TCP state), seen at ClosedAt.
	ClosedByServer bool
	ClosedAt       time.Duration
	Err            string `json:",omitempty"`
}

// NoReadEchoResult is what [NoReadEcho] returns.
type NoReadEchoResult struct {
	Conns  []NoReadConn `json:"-"`
	Dialed int
	// Attempted is what all connections meant to send; Written what the
	// kernel took.
	Attempted, Written int64
	Complete, Blocked  int
	// MinWritten and MaxWritten are per connection, over the dialed ones.
	MinWritten, MaxWritten int64
	// WritesEndedAt is when the last connection stopped pushing (see
	// NoReadConn.WritesEndedAt): the end of the attack's burst.
	WritesEndedAt time.Duration
	closeCount
	errorSummary
	Elapsed time.Duration
}

// NoReadEcho opens cfg.Conns WebSocket connections to an echo route; each
// sends cfg.Messages binary messages of cfg.Size bytes and never reads the
// echoes (nor anything else after the handshake). A server that pushes
// back stops reading, and the client's writes block; one that does not
// takes every byte and must hold or drop the echoes. The connections stay
// open until the duration passes or ctx is done.
func NoReadEcho(ctx context.Context, cfg NoReadEchoConfig) NoReadEchoResult {
	if cfg.Path == "" {
		cfg.Path = "/ws"
	}
	if cfg.Conns <= 0 {
		cfg.Conns = 1
	}
	if cfg.Messages <= 0 {
		cfg.Messages = 16
	}
	if cfg.Size <= 0 {
		cfg.Size = 64 << 10
	}
	if cfg.BlockTimeout <= 0 {
		cfg.BlockTimeout = 2 * time.Second
	}
	ctx, cancel := withDuration(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()

	payload := make([]byte, cfg.Size)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	frame := websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, payload, mask)

	conns := make([]net.Conn, cfg.Conns)
	res := NoReadEchoResult{Conns: make([]NoReadConn, cfg.Conns)}
	fanOut(cfg.Conns, cfg.DialParallel, func(i int) {
		c, _, err := dialWS(ctx, cfg.Addr, cfg.Path)
		if err != nil {
			res.Conns[i].Err = err.Error()
			return
		}
		conns[i] = c
	}, func(i int) {
		if conns[i] == nil {
			return
		}
		noReadOne(ctx, start, conns[i], frame, cfg.Messages, cfg.BlockTimeout, &res.Conns[i])
	})
	res.Elapsed = time.Since(start)
	res.MinWritten = -1
	for i, c := range res.Conns {
		res.errorSummary.add(c.Err)
		if conns[i] == nil {
			continue
		}
		res.Dialed++
		res.Attempted += int64(len(frame) * cfg.Messages)
		res.Written += c.Written
		if res.MinWritten < 0 || c.Written < res.MinWritten {
			res.MinWritten = c.Written
		}
		res.MaxWritten = max(res.MaxWritten, c.Written)
		res.WritesEndedAt = max(res.WritesEndedAt, c.WritesEndedAt)
		if c.Complete {
			res.Complete++
		}
		if c.Blocked {
			res.Blocked++
		}
		res.closeCount.add(c.ClosedByServer, c.ClosedAt)
	}
	res.MinWritten = max(res.MinWritten, 0)
	return res
}

// noReadOne writes msgs copies of frame on conn until done or blocked,
// then holds the connection, watching for the server closing it.
func noReadOne(ctx context.Context, start time.Time, conn net.Conn, frame []byte, msgs int, block time.Duration, out *NoReadConn) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()
	closed := func(how string) {
		if ctx.Err() == nil {
			out.ClosedByServer, out.ClosedAt = true, time.Since(start)
			if how != "" {
				out.Err = how
			}
		}
	}
	for m := 0; m < msgs && !out.Blocked; m++ {
		for off := 0; off < len(frame); {
			_ = conn.SetWriteDeadline(time.Now().Add(block))
			n, err := conn.Write(frame[off:])
			off += n
			out.Written += int64(n)
			if err == nil {
				continue
			}
			if isTimeout(err) && ctx.Err() == nil {
				if n > 0 {
					continue // slow, not stuck: try again
				}
				out.Blocked, out.BlockedAt = true, time.Since(start)
				break
			}
			closed("") // a write error: the server reset the connection
			return
		}
	}
	out.Complete = !out.Blocked
	if out.Complete {
		out.WritesEndedAt = time.Since(start)
	} else {
		out.WritesEndedAt = out.BlockedAt - block
	}
	// Hold the connection, unread, until the attack ends or the server
	// closes it.
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if gone, _ := peerGone(conn); gone {
				closed("")
				return
			}
		}
	}
}
