//go:build unix && (!linux || poll_opt)

package engine

import "github.com/panjf2000/gnet/v2"

// Without epoll (or with gnet's poll_opt build) there is no read pause:
// input keeps being read while parsing is paused, and MaxInboundBytes
// (larger by default here) bounds it. Nothing reaches into gnet's poller.

func readPauseSupported() (bool, string) {
	return false, "no read pause on this platform (gnet has none; the engine's uses epoll)"
}

func (c *conn) setReadInterest(bool) bool { return false }

func loopEpollFD(gnet.EventLoop) int { return -1 }

// probeEpoll has nothing to check here.
func probeEpoll(int, int) error { return nil }

func (c *conn) readPauseAvailable() bool { return false }
