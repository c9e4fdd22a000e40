package gwist

import "strconv"

// HTTP2Limits are the limits of every HTTP/2 connection (WithHTTP2Limits).
// The zero value of a field means its default, the http2 package's
// Default… constant, as given in each field's comment; the defaults match net/http's (x/net's) server, and
// docs/http2.md says what each defends against.
type HTTP2Limits struct {
	// MaxConcurrentStreams is advertised as SETTINGS_MAX_CONCURRENT_STREAMS:
	// a stream opened beyond it is refused (RST_STREAM REFUSED_STREAM).
	// Default 250.
	MaxConcurrentStreams int
	// StreamWindow is the receive window of each stream
	// (SETTINGS_INITIAL_WINDOW_SIZE), refilled as the handler reads the
	// request body: what a client may send ahead of a handler that does
	// not read. Default 1 MiB; at most 2^31-1.
	StreamWindow int
	// ConnWindow is the receive window of the whole connection, all
	// streams together. Default 1 MiB; from 65,535 to 2^31-1.
	ConnWindow int
	// MaxFrameSize is the largest frame payload accepted
	// (SETTINGS_MAX_FRAME_SIZE); a larger frame fails the connection
	// (FRAME_SIZE_ERROR). Default 16 KiB; from 16,384 to 16,777,215.
	MaxFrameSize int
	// MaxHeaderListSize bounds a request's decoded header section (name +
	// value + 32 per field, as RFC 9113 counts), advertised as
	// SETTINGS_MAX_HEADER_LIST_SIZE: a larger one is answered 431, and an
	// encoded block past twice it (CONTINUATION flood) fails the
	// connection. Default 16 KiB.
	MaxHeaderListSize int
	// MaxResetScore is the reset budget: how far streams reset early (by
	// the client before their response ended, or refused) may outnumber
	// streams completed normally before the connection fails with GOAWAY
	// ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487). Default 200.
	MaxResetScore int
	// MaxControlQueued is the control-frame budget: how many answers to the
	// client's frames (SETTINGS and PING acknowledgements, RST_STREAM) may
	// wait unsent before the connection fails with GOAWAY
	// ENHANCE_YOUR_CALM (a client that floods them and does not read).
	// Default 10,000.
	MaxControlQueued int
}

// WithHTTP2Limits sets HTTP/2's limits for every connection (see
// HTTP2Limits; zero fields keep their defaults). A value out of a field's
// range makes Start fail with ErrInvalidOption.
func WithHTTP2Limits(l HTTP2Limits) Option {
	return func(c *config) {
		ok := true
		check := func(field string, v, lo, hi int64) {
			if v != 0 && (v < lo || v > hi) {
				c.optionError("WithHTTP2Limits", field+"="+strconv.FormatInt(v, 10), "must be 0 (the default) or from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
				ok = false
			}
		}
		const maxWindow = 1<<31 - 1
		check("MaxConcurrentStreams", int64(l.MaxConcurrentStreams), 1, maxWindow)
		check("StreamWindow", int64(l.StreamWindow), 1, maxWindow)
		check("ConnWindow", int64(l.ConnWindow), 65535, maxWindow)
		check("MaxFrameSize", int64(l.MaxFrameSize), 1<<14, 1<<24-1)
		check("MaxHeaderListSize", int64(l.MaxHeaderListSize), 1, maxWindow)
		check("MaxResetScore", int64(l.MaxResetScore), 1, maxWindow)
		check("MaxControlQueued", int64(l.MaxControlQueued), 1, maxWindow)
		if !ok {
			return
		}
		h := &c.engine.H2
		h.MaxConcurrentStreams = uint32(l.MaxConcurrentStreams)
		h.StreamWindow = uint32(l.StreamWindow)
		h.ConnWindow = uint32(l.ConnWindow)
		h.MaxFrameSize = uint32(l.MaxFrameSize)
		h.MaxHeaderListSize = uint32(l.MaxHeaderListSize)
		h.MaxResetScore = l.MaxResetScore
		h.MaxControlQueued = l.MaxControlQueued
	}
}
