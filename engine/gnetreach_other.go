//go:build unix && !linux

package engine

// sendQueued is unknown here: the write timeout sees progress only in
// gnet's own buffer, which moves when the socket's send buffer has room.
func sendQueued(int) int { return -1 }
