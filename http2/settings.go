package http2

import (
	"encoding/base64"
	"strings"

	xh2 "golang.org/x/net/http2"
)

// onSettings applies the peer's SETTINGS and queues the ACK.
func (c *Conn) onSettings(f *xh2.SettingsFrame) {
	if f.IsAck() {
		c.settingsAcked = true // our settings took effect from the start (they only loosen)
		return
	}
	// Repeated entries are legal and applied in order (RFC 9113 section
	// 6.5.3; h2spec checks it), unlike x/net's server, which rejects them;
	// the entry cap bounds the work one frame can cause.
	if f.NumSettings() > maxSettingsEntries {
		c.fail(ErrCodeProtocol, "too many SETTINGS entries")
		return
	}
	for i := 0; i < f.NumSettings(); i++ {
		if !c.applySetting(f.Setting(i)) {
			return
		}
	}
	c.gotSettings = true
	c.queueControl(func(w *xh2.Framer) { w.WriteSettingsAck() })
}

// applySetting applies one of the peer's settings; false after failing
// the connection.
func (c *Conn) applySetting(s xh2.Setting) bool {
	if err := s.Valid(); err != nil {
		code := ErrCodeProtocol
		if ce, ok := err.(xh2.ConnectionError); ok {
			code = ErrCode(ce)
		}
		c.fail(code, "invalid setting "+s.String())
		return false
	}
	switch s.ID {
	case xh2.SettingHeaderTableSize:
		c.enc.SetMaxDynamicTableSize(min(s.Val, maxEncoderTable))
	case xh2.SettingInitialWindowSize:
		// RFC 9113 section 6.9.2: every stream's send window moves by the
		// difference, and may go negative.
		delta := int64(s.Val) - int64(c.peerInitWindow)
		c.peerInitWindow = int32(s.Val)
		for _, st := range c.streams {
			if st.closed() {
				continue
			}
			if st.sendWindow+delta > maxWindow {
				c.fail(ErrCodeFlowControl, "stream window above 2^31-1")
				return false
			}
			st.sendWindow += delta
			c.schedule(st)
		}
	case xh2.SettingMaxFrameSize:
		c.peerMaxFrame = s.Val
	}
	// ENABLE_PUSH is validated and needs nothing (the server never pushes);
	// MAX_CONCURRENT_STREAMS limits pushes; MAX_HEADER_LIST_SIZE is
	// advisory; unknown settings are ignored.
	return true
}

// Upgrade prepares a new Conn for an HTTP/1.1 request that asked for
// `Upgrade: h2c` (RFC 7540 section 3.2): settings is the request's
// HTTP2-Settings value, applied as the peer's SETTINGS. The request
// becomes stream 1, half-closed (remote), counted as a delivered request:
// the caller answers it with WriteHeaders(1, ...) and so on, and calls
// Release(1) when its handler is done. The caller writes
// UpgradeResponse before the first Output; the client's preface is still
// expected next on the wire. Call it once, before anything else.
func (c *Conn) Upgrade(settings string) error {
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(settings, "="))
	if err != nil || len(payload)%6 != 0 || len(payload)/6 > maxSettingsEntries {
		return ErrBadSettings
	}
	// Parse the payload with the Framer: wrap it in a SETTINGS frame header.
	frame := make([]byte, frameHeaderLen, frameHeaderLen+len(payload))
	frame[0], frame[1], frame[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	frame[3] = byte(xh2.FrameSettings)
	frame = append(frame, payload...)
	c.rd.Reset(frame)
	fr := xh2.NewFramer(nil, &c.rd)
	f, err := fr.ReadFrame()
	if err != nil {
		return ErrBadSettings
	}
	sf := f.(*xh2.SettingsFrame)
	for i := 0; i < sf.NumSettings(); i++ {
		if sf.Setting(i).Valid() != nil {
			return ErrBadSettings
		}
	}
	for i := 0; i < sf.NumSettings(); i++ {
		c.applySetting(sf.Setting(i))
	}
	st := c.newStream(1)
	c.maxClientID = 1
	st.declared = 0
	st.delivered = true
	c.handlers++
	c.remoteEnd(st)
	return nil
}

// UpgradeResponse is the HTTP/1.1 response that accepts `Upgrade: h2c`;
// the server's HTTP/2 frames (Output) follow it.
const UpgradeResponse = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"

// IsPreface reports whether p starts with the HTTP/2 client preface
// ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), for recognising h2c by prior
// knowledge: match when p holds the whole preface, more when p is a
// shorter prefix of it (read more and ask again).
func IsPreface(p []byte) (match, more bool) {
	n := min(len(p), len(xh2.ClientPreface))
	if string(p[:n]) != xh2.ClientPreface[:n] {
		return false, false
	}
	return n == len(xh2.ClientPreface), n < len(xh2.ClientPreface)
}
