package hostile

import (
	"bufio"
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/websocket"
)

// PingFloodConfig configures [PingFlood].
type PingFloodConfig struct {
	// Addr is the server's host:port.
	Addr string
	// Path is the WebSocket route (default "/ws").
	Path string
	// Conns is the number of connections (default 1).
	Conns int
	// PingSize is each ping's payload (default 125, the largest a control
	// frame may carry: the most pong bytes per ping byte).
	PingSize int
	// ReadPongs reads (and parses and drops) everything the server sends;
	// without it the attack never reads a byte after the handshake.
	ReadPongs bool
	// ReadRate, with ReadPongs, caps the reading at this many bytes per
	// second (0: as fast as it can): a reader that falls behind the pongs.
	ReadRate int64
	// Duration bounds the attack (0: until ctx is done).
	Duration time.Duration
}

// PingConn is one ping-flood connection's outcome.
type PingConn struct {
	PingsSent    int64
	BytesWritten int64
	BytesRead    int64 // with ReadPongs
	Pongs        int64 // with ReadPongs
	// LastProgress is when a write last made progress: far before the end
	// of the attack, the server stopped reading (backpressure).
	LastProgress time.Duration
	// ClosedByServer: the server closed or reset the connection (seen as
	// a failed write, EOF, a close frame, or the TCP state) at ClosedAt.
	ClosedByServer bool
	ClosedAt       time.Duration
	// CloseCode is the code of the server's close frame (0: none read).
	CloseCode int
	// HowClosed says how the close was seen ("close frame", "EOF", a
	// write's error, "tcp state").
	HowClosed string `json:",omitempty"`
	Err       string `json:",omitempty"`
}

// PingFloodResult is what [PingFlood] returns.
type PingFloodResult struct {
	Conns     []PingConn
	Dialed    int // connections whose handshake succeeded
	PingsSent int64
	BytesRead int64
	Pongs     int64
	closeCount
	errorSummary
	Elapsed time.Duration
}

// PingFlood opens cfg.Conns WebSocket connections to cfg.Path and sends
// masked ping frames on each as fast as the socket takes them, until the
// duration passes, the context is done, or the server closes the
// connection. It never sends anything else (no close frame at the end:
// the connections are just closed).
func PingFlood(ctx context.Context, cfg PingFloodConfig) PingFloodResult {
	if cfg.Path == "" {
		cfg.Path = "/ws"
	}
	if cfg.Conns <= 0 {
		cfg.Conns = 1
	}
	if cfg.PingSize <= 0 || cfg.PingSize > websocket.MaxControlPayload {
		cfg.PingSize = websocket.MaxControlPayload
	}
	ctx, cancel := withDuration(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()

	// One buffer of whole ping frames, written over and over; a write cut
	// by a deadline resumes where it stopped, so framing stays intact.
	payload := make([]byte, cfg.PingSize)
	for i := range payload {
		payload[i] = 'p'
	}
	frame := websocket.AppendMaskedFrame(nil, websocket.OpPing, true, payload, mask)
	var buf []byte
	for len(buf)+len(frame) <= 64<<10 {
		buf = append(buf, frame...)
	}

	conns := make([]net.Conn, cfg.Conns)
	readers := make([]*bufio.Reader, cfg.Conns)
	res := PingFloodResult{Conns: make([]PingConn, cfg.Conns)}
	fanOut(cfg.Conns, 0, func(i int) {
		c, br, err := dialWS(ctx, cfg.Addr, cfg.Path)
		if err != nil {
			res.Conns[i].Err = err.Error()
			return
		}
		conns[i], readers[i] = c, br
	}, func(i int) {
		if conns[i] == nil {
			return
		}
		readRate := int64(-1) // never read
		if cfg.ReadPongs {
			readRate = max(cfg.ReadRate, 0)
		}
		floodOne(ctx, start, conns[i], readers[i], buf, int64(len(frame)), readRate, &res.Conns[i])
	})
	res.Elapsed = time.Since(start)
	for i, c := range res.Conns {
		if conns[i] != nil {
			res.Dialed++
		}
		res.PingsSent += c.PingsSent
		res.BytesRead += c.BytesRead
		res.Pongs += c.Pongs
		res.closeCount.add(c.ClosedByServer, c.ClosedAt)
		res.errorSummary.add(c.Err)
	}
	return res
}

// floodOne writes buf (whole ping frames of frameLen bytes) on conn until
// ctx is done or the server closes. With readRate >= 0 it reads
// everything, at most readRate bytes per second when it is > 0.
func floodOne(ctx context.Context, start time.Time, conn net.Conn, br *bufio.Reader, buf []byte, frameLen int64, readRate int64, out *PingConn) {
	var (
		mu        sync.Mutex
		closed    bool
		closedAt  time.Duration
		closeCode int
		how       string
	)
	serverClosed := func(code int, seen string) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || closed {
			if code != 0 && closeCode == 0 {
				closeCode = code
			}
			return
		}
		closed, closedAt, how = true, time.Since(start), seen
		if code != 0 {
			closeCode = code
		}
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	var rd sync.WaitGroup
	var bytesRead, pongs atomic.Int64
	if readRate >= 0 {
		rd.Add(1)
		go func() {
			defer rd.Done()
			r := websocket.NewReader(websocket.Config{Client: true, MaxFrame: 64 << 20, MaxMessage: 64 << 20})
			var tmp [64 << 10]byte
			var pending []byte
			for {
				n, err := br.Read(tmp[:])
				total := bytesRead.Add(int64(n))
				if readRate > 0 { // pace: total bytes by now at most readRate/s
					ahead := time.Duration(float64(total)/float64(readRate)*float64(time.Second)) - time.Since(start)
					if ahead > 0 {
						time.Sleep(ahead)
					}
				}
				pending = append(pending, tmp[:n]...)
				for len(pending) > 0 {
					k := r.Feed(pending)
					pending = pending[k:]
					ev, ok := r.Next()
					for ok {
						switch ev.Kind {
						case websocket.EventPong:
							pongs.Add(1)
						case websocket.EventClose:
							serverClosed(int(ev.Code), "close frame")
						}
						ev, ok = r.Next()
					}
					if k == 0 {
						break
					}
				}
				pending = append(pending[:0:0], pending...) // keep no reference into tmp
				if r.Err() != nil || r.Closed() {
					// Nothing more to parse: count the rest as bytes read.
					for {
						n, err := br.Read(tmp[:])
						bytesRead.Add(int64(n))
						if err != nil {
							break
						}
					}
					serverClosed(0, "close frame")
					return
				}
				if err != nil {
					serverClosed(0, "read: "+err.Error())
					return
				}
			}
		}()
	}

	var written int64
	off := 0
	isClosed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return closed
	}
	for ctx.Err() == nil && !isClosed() {
		_ = conn.SetWriteDeadline(time.Now().Add(250 * time.Millisecond))
		n, err := conn.Write(buf[off:])
		written += int64(n)
		off = (off + n) % len(buf)
		if n > 0 {
			out.LastProgress = time.Since(start)
		}
		if err == nil {
			continue
		}
		if isTimeout(err) {
			// The server is not reading; has it gone?
			if gone, _ := peerGone(conn); gone {
				serverClosed(0, "tcp state")
				break
			}
			continue
		}
		serverClosed(0, "write: "+err.Error())
		break
	}
	conn.Close()
	rd.Wait()
	mu.Lock()
	defer mu.Unlock()
	out.BytesWritten = written
	out.PingsSent = written / frameLen
	out.BytesRead = bytesRead.Load()
	out.Pongs = pongs.Load()
	out.ClosedByServer, out.ClosedAt, out.CloseCode, out.HowClosed = closed, closedAt, closeCode, how
}
