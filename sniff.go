package gwist

import (
	"net/http"

	"github.com/gwist/gwist/engine"
)

// Ctx.Write's Content-Type sniffing, as net/http's: a response whose
// handler wrote its body with Write and set no Content-Type gets the one
// http.DetectContentType gives the first 512 bytes. The decision is taken
// once per response, at its first Write; a handler that set a type (or
// wrote with String, JSON, Bytes, HTML...) pays one header lookup.

// typeState values.
const (
	typeUnknown = iota // no Write yet
	typeDecided        // the type is the handler's, or sniffed, or not wanted
	typePending        // Write came without a type: sniff once 512 bytes are in
)

// sniffWrite handles a Write while the type is not decided. done means p
// was taken (held back, in front of a middleware's writer) and n, err are
// Write's results; otherwise Write goes on with p.
func (c *Ctx) sniffWrite(p []byte) (n int, done bool, err error) {
	if c.typeState == typeUnknown {
		if !c.wantsSniff() {
			c.typeState = typeDecided
			return 0, false, nil
		}
		c.typeState = typePending
	}
	if c.w == nil {
		// The body is buffered in the Exchange until the head goes out:
		// sniff just before it could (512 bytes in, or the threshold).
		if total := len(c.ex.Body) + len(p); total >= sniffLen || total > c.app.streamThreshold() {
			c.setSniffed(c.ex.Body, p)
		}
		return 0, false, nil
	}
	// A middleware's writer (gzip) decides on its first bytes: hold them
	// back until the type is known.
	c.responded = true
	if len(c.held)+len(p) < sniffLen {
		c.held = append(c.held, p...)
		return len(p), true, nil
	}
	c.setSniffed(c.held, p)
	if err := c.pushHeld(); err != nil {
		return 0, true, err
	}
	n, err = c.w.Write(p)
	return n, true, err
}

// wantsSniff: the response has no Content-Type or Content-Encoding, may
// have a body, and its head has not gone out.
func (c *Ctx) wantsSniff() bool {
	return !c.ex.Streaming() && c.ex.Header.Get("Content-Type") == "" &&
		c.ex.Header.Get("Content-Encoding") == "" && bodyAllowedForStatus(c.ResponseStatus())
}

// endSniff decides the type from what was written (fewer than 512 bytes)
// and sends what was held back: at Flush, and when the handler returns.
func (c *Ctx) endSniff() error {
	if c.w == nil {
		c.setSniffed(c.ex.Body, nil)
		return nil
	}
	c.setSniffed(c.held, nil)
	return c.pushHeld()
}

// setSniffed sets the Content-Type of a body that starts with a, then b.
func (c *Ctx) setSniffed(a, b []byte) {
	c.typeState = typeDecided
	if len(a)+len(b) == 0 {
		return // nothing written: no type, as net/http
	}
	var data []byte
	switch {
	case len(a) >= sniffLen || len(b) == 0:
		data = a[:min(len(a), sniffLen)]
	case len(a) == 0:
		data = b[:min(len(b), sniffLen)]
	default:
		data = append(make([]byte, 0, sniffLen), a...)
		data = append(data, b[:min(len(b), sniffLen-len(a))]...)
	}
	_ = c.ex.Header.Set("Content-Type", http.DetectContentType(data))
}

// pushHeld writes the held-back bytes to the middleware's writer.
func (c *Ctx) pushHeld() error {
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.w.Write(c.held)
	c.held = c.held[:0]
	return err
}

// streamThreshold is the body size past which a response streams.
func (a *App) streamThreshold() int {
	if n := a.cfg.engine.StreamThreshold; n > 0 {
		return n
	}
	return engine.DefaultStreamThreshold
}
