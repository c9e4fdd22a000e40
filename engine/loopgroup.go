package engine

import (
	"fmt"
	"sync"

	"github.com/panjf2000/gnet/v2"
)

// LoopGroup is a set of gnet event loops shared by several servers (an
// App's listeners), so that their loops together stay as few as one
// server's: a loop waiting in epoll_wait holds its P in a system call, and
// while loops hold every P a goroutine woken by Go's netpoller (a server's
// accept goroutine) waits 10–30 ms for the runtime to take one back. The
// loops start with the group's first server, with its Config.Loops, and
// stop with the Shutdown of its last.
type LoopGroup struct {
	mu    sync.Mutex
	cli   *gnet.Client // nil while no server uses the group; under mu
	users int          // servers started and not yet shut down; under mu
}

// NewLoopGroup returns a group whose loops start with its first server.
func NewLoopGroup() *LoopGroup { return &LoopGroup{} }

// acquire starts the loops on first use (loops of them) and returns the
// client every server of the group enrols its connections with.
func (g *LoopGroup) acquire(loops int, logger gnetLogger) (*gnet.Client, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cli == nil {
		cli, err := gnet.NewClient(&groupEvents{},
			gnet.WithMulticore(true),
			gnet.WithNumEventLoop(loops),
			// Go's accept already set TCP_NODELAY on the socket gnet adopts
			// (a dup of the same socket); TCPDelay only spares the second call.
			gnet.WithTCPNoDelay(gnet.TCPDelay),
			gnet.WithLogger(logger),
		)
		if err == nil {
			err = cli.Start()
		}
		if err != nil {
			return nil, fmt.Errorf("gwist: start event loops: %w", err)
		}
		g.cli = cli
	}
	g.users++
	return g.cli, nil
}

// release stops the loops when their last server has stopped.
func (g *LoopGroup) release() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.users--
	if g.users > 0 {
		return nil
	}
	cli := g.cli
	g.cli = nil
	return cli.Stop()
}

// groupEvents routes gnet's callbacks to the server of each connection: at
// open by the context it was enrolled with (the *Server, or shedMark for a
// connection taken beyond the cap), then by its conn.
type groupEvents struct{ gnet.BuiltinEventEngine }

func (*groupEvents) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	switch e := gc.Context().(type) {
	case *Server:
		return e.onOpen(gc)
	case shedMark:
		return e.s.onOpen(gc)
	case reopened:
		return e.c.srv.onReopen(gc, e.c)
	}
	return nil, gnet.Close
}

func (*groupEvents) OnTraffic(gc gnet.Conn) gnet.Action {
	c, ok := gc.Context().(*conn)
	if !ok {
		return gnet.Close
	}
	return c.srv.onTraffic(gc)
}

func (*groupEvents) OnClose(gc gnet.Conn, err error) gnet.Action {
	c, ok := gc.Context().(*conn)
	if !ok {
		return gnet.None
	}
	return c.srv.onClose(gc, err)
}
