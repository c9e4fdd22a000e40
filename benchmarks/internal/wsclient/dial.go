package wsclient

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// StatusError is a handshake answered with another status than 101.
type StatusError struct{ Code int }

func (e *StatusError) Error() string {
	return "wsclient: handshake answered " + strconv.Itoa(e.Code) + ", not 101"
}

// Sockaddr converts an IPv4 address and port to the form the socket calls take.
func Sockaddr(ap netip.AddrPort) (*unix.SockaddrInet4, error) {
	if !ap.Addr().Is4() {
		return nil, fmt.Errorf("wsclient: %v is not IPv4", ap)
	}
	return &unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}, nil
}

// Dial connects a TCP socket from src (nil: the kernel's choice; port 0 is
// picked at connect time, so one source address serves the whole ephemeral
// range) to dst, and does the opening handshake for GET path with the given
// Host. It returns the blocking socket, with TCP_NODELAY set, and any bytes
// the server sent after the 101 head. The timeout bounds each of connect,
// write and read.
func Dial(src, dst *unix.SockaddrInet4, host, path string, timeout time.Duration) (fd int, rest []byte, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, fmt.Errorf("socket: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
			fd = -1
		}
	}()
	if err = SetTimeout(fd, timeout); err != nil {
		return fd, nil, err
	}
	if src != nil {
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT, 1)
		if err = unix.Bind(fd, &unix.SockaddrInet4{Addr: src.Addr}); err != nil {
			return fd, nil, fmt.Errorf("bind: %w", err)
		}
	}
	if err = connect(fd, dst, timeout); err != nil {
		return fd, nil, fmt.Errorf("connect: %w", err)
	}
	if err = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1); err != nil {
		return fd, nil, err
	}
	key := newKey()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if err = WriteAll(fd, []byte(req)); err != nil {
		return fd, nil, fmt.Errorf("write handshake: %w", err)
	}
	rest, err = readHandshake(fd, key)
	return fd, rest, err
}

// connect connects fd to dst within timeout. It connects non-blocking and
// polls, because a blocking connect interrupted by a signal (the Go
// runtime preempts goroutines with SIGURG) cannot simply be retried; the
// socket is blocking again afterwards.
func connect(fd int, dst *unix.SockaddrInet4, timeout time.Duration) error {
	if err := unix.SetNonblock(fd, true); err != nil {
		return err
	}
	to := unix.SockaddrInet4{Port: dst.Port, Addr: dst.Addr} // a Sockaddr is scratch space for the call: one per goroutine
	err := unix.Connect(fd, &to)
	if err == unix.EINPROGRESS || err == unix.EINTR {
		deadline := time.Now().Add(timeout)
		for {
			left := time.Until(deadline)
			if left <= 0 {
				return unix.ETIMEDOUT
			}
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
			n, perr := unix.Poll(pfd, int(left.Milliseconds())+1)
			if perr == unix.EINTR || (perr == nil && n == 0) {
				continue
			}
			if perr != nil {
				return perr
			}
			break
		}
		soErr, gerr := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if gerr != nil {
			return gerr
		}
		err = nil
		if soErr != 0 {
			err = unix.Errno(soErr)
		}
	}
	if err != nil {
		return err
	}
	return unix.SetNonblock(fd, false)
}

// readHandshake reads the server's answer up to the end of its head and
// checks the status and Sec-WebSocket-Accept.
func readHandshake(fd int, key string) ([]byte, error) {
	buf := make([]byte, 0, 512)
	var tmp [512]byte
	for {
		n, err := unix.Read(fd, tmp[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read handshake: %w", err)
		}
		if n == 0 {
			return nil, fmt.Errorf("read handshake: connection closed after %d bytes", len(buf))
		}
		buf = append(buf, tmp[:n]...)
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			if err := checkHead(string(buf[:i]), key); err != nil {
				return nil, err
			}
			return append([]byte(nil), buf[i+4:]...), nil
		}
		if len(buf) > 8<<10 {
			return nil, fmt.Errorf("read handshake: head over 8 KiB")
		}
	}
}

func checkHead(head, key string) error {
	lines := strings.Split(head, "\r\n")
	f := strings.Fields(lines[0])
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return fmt.Errorf("wsclient: bad status line %q", lines[0])
	}
	code, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("wsclient: bad status line %q", lines[0])
	}
	if code != 101 {
		return &StatusError{Code: code}
	}
	want := AcceptKey(key)
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Sec-WebSocket-Accept") {
			if strings.TrimSpace(value) != want {
				return fmt.Errorf("wsclient: Sec-WebSocket-Accept %q, want %q", strings.TrimSpace(value), want)
			}
			return nil
		}
	}
	return fmt.Errorf("wsclient: 101 without Sec-WebSocket-Accept")
}

// AcceptKey is the Sec-WebSocket-Accept a server must answer to key.
func AcceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// SetTimeout sets SO_SNDTIMEO and SO_RCVTIMEO of a blocking socket (0: none).
func SetTimeout(fd int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv); err != nil {
		return err
	}
	return unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
}

// WriteAll writes b to a blocking socket, retrying short writes and EINTR.
func WriteAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
