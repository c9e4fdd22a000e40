//go:build unix && (!linux || poll_opt)

package engine

import "github.com/panjf2000/gnet/v2"

// Without raw registration on gnet's loops (peerdone_linux.go) a client's
// half-close after a keep-alive request closes the connection, as gnet
// does, and the responses in flight on workers are not sent.

func (c *conn) outliveReadEOF(error) bool { return false }

func (c *conn) carriedPastEOF() bool { return false }

type reopened struct{ c *conn }

func (s *Server) onReopen(gnet.Conn, *conn) ([]byte, gnet.Action) { return nil, gnet.Close }
