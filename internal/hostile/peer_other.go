//go:build !linux

package hostile

import "net"

// peerGone cannot see the TCP state here: a client that never reads
// learns that the server closed only from a failing write.
func peerGone(net.Conn) (gone, known bool) { return false, false }
