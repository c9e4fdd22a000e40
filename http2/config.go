package http2

import "time"

// Defaults for the zero fields of [Config]. Each is documented, with what a
// breach does, in the package documentation.
const (
	DefaultMaxConcurrentStreams = 250
	DefaultStreamWindow         = 1 << 20 // per-stream receive window
	DefaultConnWindow           = 1 << 20 // connection receive window
	DefaultMaxFrameSize         = 16 << 10
	DefaultMaxHeaderListSize    = 16 << 10
	DefaultMaxStreamQueued      = 64 << 10  // response DATA queued per stream
	DefaultMaxConnQueued        = 256 << 10 // response DATA queued per connection
	DefaultMaxControlQueued     = 10000
	DefaultMaxResetScore        = 200
	DefaultMaxIdleFrames        = 10000
	DefaultPrefaceTimeout       = 10 * time.Second
	DefaultSettingsTimeout      = 5 * time.Second
)

// Config holds a connection's limits. Zero fields take the defaults above.
type Config struct {
	// EnableConnectProtocol advertises SETTINGS_ENABLE_CONNECT_PROTOCOL
	// (RFC 8441) and accepts the extended CONNECT it enables: a CONNECT
	// with :protocol, :scheme, :path and :authority (Request.Protocol),
	// whose stream then carries another protocol (WebSocket) both ways.
	// Off, a :protocol field is malformed (PROTOCOL_ERROR).
	EnableConnectProtocol bool
	// MaxConcurrentStreams is advertised as SETTINGS_MAX_CONCURRENT_STREAMS
	// and also caps the requests whose handlers have not been released
	// (Conn.Release): a stream beyond either is refused with RST_STREAM
	// REFUSED_STREAM.
	MaxConcurrentStreams uint32
	// StreamWindow is the receive window of each stream
	// (SETTINGS_INITIAL_WINDOW_SIZE); ConnWindow that of the connection.
	// Both are refilled only as the application consumes request body bytes.
	StreamWindow, ConnWindow uint32
	// MaxFrameSize is the largest frame payload accepted
	// (SETTINGS_MAX_FRAME_SIZE, 16384 to 16777215).
	MaxFrameSize uint32
	// MaxHeaderListSize bounds a decoded header (or trailer) section, counted
	// as RFC 9113 does (name + value + 32 per field); it is advertised as
	// SETTINGS_MAX_HEADER_LIST_SIZE. The encoded block (HEADERS and
	// CONTINUATION frames, 9 bytes counted per frame) may be at most twice
	// this plus one frame.
	MaxHeaderListSize uint32
	// MaxStreamQueued and MaxConnQueued bound the response DATA the
	// connection holds before it is framed (per stream, and for all streams
	// together): Conn.Writable reports the room left.
	MaxStreamQueued, MaxConnQueued int
	// MaxControlQueued bounds the answers to the peer's frames (SETTINGS
	// and PING acknowledgements, RST_STREAM) queued and not yet taken by
	// Conn.Output.
	MaxControlQueued int
	// MaxResetScore bounds the excess of streams reset early (by the client
	// before their response ended, or refused or reset by the server after
	// the client's error) over streams completed normally.
	MaxResetScore int
	// MaxIdleFrames bounds the frames in a row that do nothing for the
	// application: empty DATA that does not end a stream, PRIORITY,
	// WINDOW_UPDATE, PING, SETTINGS, RST_STREAM of closed streams, unknown
	// types. A request, request body bytes, or response DATA sent resets
	// the count. Past it: GOAWAY ENHANCE_YOUR_CALM (empty-frame,
	// WINDOW_UPDATE and PRIORITY floods cost CPU for nothing).
	MaxIdleFrames int
	// PrefaceTimeout is how long a new connection may take to send the
	// client preface and its SETTINGS (Conn.PrefaceDeadline).
	PrefaceTimeout time.Duration
	// SettingsTimeout is how long the peer may take to acknowledge the
	// server's SETTINGS; past it the connection fails with GOAWAY
	// SETTINGS_TIMEOUT (RFC 9113 section 6.5.3). A client that never
	// acknowledges would otherwise hold the connection until its idle
	// timeout.
	SettingsTimeout time.Duration
	// Counters, when set, count this connection's streams, resets and
	// GOAWAYs; many connections may share them.
	Counters *Counters
}

func (c *Config) setDefaults() {
	if c.MaxConcurrentStreams == 0 {
		c.MaxConcurrentStreams = DefaultMaxConcurrentStreams
	}
	if c.StreamWindow == 0 {
		c.StreamWindow = DefaultStreamWindow
	}
	if c.StreamWindow > maxWindow {
		c.StreamWindow = maxWindow
	}
	if c.ConnWindow < initialWindow {
		c.ConnWindow = DefaultConnWindow
	}
	if c.ConnWindow > maxWindow {
		c.ConnWindow = maxWindow
	}
	if c.MaxFrameSize < minMaxFrameSize {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	if c.MaxFrameSize > maxMaxFrameSize {
		c.MaxFrameSize = maxMaxFrameSize
	}
	if c.MaxHeaderListSize == 0 {
		c.MaxHeaderListSize = DefaultMaxHeaderListSize
	}
	if c.MaxStreamQueued <= 0 {
		c.MaxStreamQueued = DefaultMaxStreamQueued
	}
	if c.MaxConnQueued <= 0 {
		c.MaxConnQueued = DefaultMaxConnQueued
	}
	if c.MaxControlQueued <= 0 {
		c.MaxControlQueued = DefaultMaxControlQueued
	}
	if c.MaxResetScore <= 0 {
		c.MaxResetScore = DefaultMaxResetScore
	}
	if c.MaxIdleFrames == 0 {
		c.MaxIdleFrames = DefaultMaxIdleFrames
	}
	if c.PrefaceTimeout <= 0 {
		c.PrefaceTimeout = DefaultPrefaceTimeout
	}
	if c.SettingsTimeout <= 0 {
		c.SettingsTimeout = DefaultSettingsTimeout
	}
}

// Protocol constants (RFC 9113).
const (
	initialWindow   = 65535
	maxWindow       = 1<<31 - 1
	minMaxFrameSize = 1 << 14
	maxMaxFrameSize = 1<<24 - 1
	frameHeaderLen  = 9
	// maxSettingsEntries: more entries in one SETTINGS frame is a
	// PROTOCOL_ERROR (as x/net's server).
	maxSettingsEntries = 100
	// maxEncoderTable caps the HPACK encoder's dynamic table whatever the
	// peer's SETTINGS_HEADER_TABLE_SIZE says.
	maxEncoderTable = 4096
)
