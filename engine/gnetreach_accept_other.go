//go:build unix && (!linux || poll_opt)

package engine

import (
	"errors"

	"github.com/panjf2000/gnet/v2"
)

// No raw accept here (gnetreach_accept_linux.go): every connection is
// accepted by the net.TCPListener and enters gnet through EnrollContext.

type rawAcceptor struct{}

type rawLoop struct{}

func rawAcceptSupported() bool { return false }

func newRawAcceptor(*Server) (*rawAcceptor, error) { return nil, errRawAccept }

func (*rawAcceptor) accept() (accepted, error) { return accepted{}, errRawAccept }

func (*rawAcceptor) close() {}

func (*rawAcceptor) wait() {}

func (*Server) enrollRaw(accepted, any, func(error)) error { return errRawAccept }

func refuseRaw(int) {}

var errRawAccept = errors.New("no raw accept on this platform (it registers with gnet's epoll loops)")

func probeRawAccept(*gnet.Client, gnet.Conn, probeHooks) error { return errRawAccept }

type rawProbe struct{}

func (*rawProbe) onOpen(gnet.Conn) ([]byte, gnet.Action) { return nil, gnet.Close }
func (*rawProbe) onClose(gnet.Conn)                      {}
