package wsclient

import (
	"bytes"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// RoundTrip sends msg as one masked text frame on a blocking socket and
// reads frames until a data frame comes back, which must equal msg. It
// answers nothing else: it is the liveness check of a held connection.
// pending holds bytes already read from the socket (may be nil).
func RoundTrip(fd int, msg, pending []byte, timeout time.Duration) error {
	if err := SetTimeout(fd, timeout); err != nil {
		return err
	}
	if err := WriteAll(fd, AppendMasked(nil, OpText, msg, [4]byte{1, 2, 3, 4})); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	buf := append([]byte(nil), pending...)
	var tmp [4096]byte
	for {
		f, n, err := Parse(buf)
		if err != nil {
			return err
		}
		if n > 0 {
			switch f.Op {
			case OpText, OpBinary:
				if !bytes.Equal(f.Payload, msg) {
					return fmt.Errorf("echo of %d bytes differs from the %d sent", len(f.Payload), len(msg))
				}
				return nil
			case OpClose:
				return fmt.Errorf("server sent close")
			}
			buf = buf[n:]
			continue
		}
		r, err := unix.Read(fd, tmp[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if r == 0 {
			return fmt.Errorf("read: connection closed")
		}
		buf = append(buf, tmp[:r]...)
	}
}
