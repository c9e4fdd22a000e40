package sockopt_test

import (
	"fmt"
	"net"
	"time"

	"github.com/gwist/gwist/sockopt"
)

// Tune an accepted connection's fd the way the engine does at accept.
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer client.Close()
	c, err := ln.Accept()
	if err != nil {
		panic(err)
	}
	defer c.Close()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		panic(err)
	}
	var setErr error
	rc.Control(func(fd uintptr) {
		if err := sockopt.NoDelay(int(fd), true); err != nil {
			setErr = err
		}
		if err := sockopt.QuickAck(int(fd)); err != nil {
			setErr = err
		}
		if err := sockopt.KeepAlive(int(fd), 30*time.Second, 10*time.Second, 3); err != nil {
			setErr = err
		}
	})
	fmt.Println("tuned:", setErr == nil)
	// Output: tuned: true
}
