package websocket

import (
	"compress/flate"
	"strings"
)

// Window sizes of permessage-deflate (RFC 7692 section 7.1.2).
const (
	minWindowBits = 8
	maxWindowBits = 15
)

// DeflateConfig is what a server accepts of permessage-deflate (RFC 7692).
//
// What is supported: context takeover in both directions, or not, as
// negotiated; server_max_window_bits only at 15 (compress/flate always
// uses a 32 KiB window, so an offer asking for a smaller server window is
// declined and the next offer is tried); client_max_window_bits answered
// when ClientMaxWindowBits is set and the client offered the parameter.
type DeflateConfig struct {
	// ServerNoContextTakeover makes the server reset its compressor after
	// every message even when the client did not ask for it: its flate
	// state is then pooled between messages instead of held per
	// connection (hundreds of KiB; see [Deflater]).
	ServerNoContextTakeover bool
	// ClientNoContextTakeover asks the client to reset its compressor after
	// every message, so the server's inflater keeps no window (32 KiB) per
	// connection between messages.
	ClientNoContextTakeover bool
	// ClientMaxWindowBits (8-15), when the client offers
	// client_max_window_bits, answers with the smaller of it and the
	// client's value; the server then keeps a smaller window for context
	// takeover. 0: not answered (the client's window is 32 KiB or what it
	// offered).
	ClientMaxWindowBits int
	// Level is the compress/flate level of the server's compressor:
	// flate.HuffmanOnly (-2), flate.DefaultCompression (-1) or 1-9; 0 means
	// flate.BestSpeed.
	Level int
}

// DeflateParams is a negotiated permessage-deflate agreement: what both
// ends do. [NegotiateDeflate] returns it; [Config] and [NewDeflater] take
// it.
type DeflateParams struct {
	// ServerNoContextTakeover: the server's compressor is reset after
	// every message.
	ServerNoContextTakeover bool
	// ClientNoContextTakeover: the client's compressor is reset after
	// every message.
	ClientNoContextTakeover bool
	// ServerMaxWindowBits and ClientMaxWindowBits are the LZ77 windows the
	// server and client compress with (8-15; 0 means 15).
	ServerMaxWindowBits int
	ClientMaxWindowBits int
	// Level is the flate level the local compressor uses (0: BestSpeed).
	Level int
}

// ExtensionName is the permessage-deflate extension token.
const ExtensionName = "permessage-deflate"

// NegotiateDeflate picks the first permessage-deflate offer among the
// client's Sec-WebSocket-Extensions values (offers) that the server can
// accept, and returns the agreement and the Sec-WebSocket-Extensions
// response value. ok is false when no offer is acceptable: the connection
// then goes on without the extension (declining is not an error, RFC 7692
// section 5).
//
// An offer is declined when a parameter is unknown, repeated, given a
// value it must not have, missing a value it needs, or has a value that
// is not a decimal 8-15 (quoted or not); and when it asks for
// server_max_window_bits below 15, which compress/flate cannot honour.
func NegotiateDeflate(offers []string, cfg DeflateConfig) (params DeflateParams, response string, ok bool) {
	for _, e := range parseExtensions(offers) {
		if !e.ok || !strings.EqualFold(e.name, ExtensionName) {
			continue
		}
		if p, resp, ok := acceptOffer(e, cfg); ok {
			return p, resp, true
		}
	}
	return DeflateParams{}, "", false
}

func acceptOffer(e extension, cfg DeflateConfig) (DeflateParams, string, bool) {
	var (
		serverNoCT, clientNoCT   bool
		serverBits               int
		clientBits               int // 0: not offered
		seenServerMWB, seenClMWB bool
	)
	for _, p := range e.params {
		switch strings.ToLower(p.name) {
		case "server_no_context_takeover":
			if serverNoCT || p.hasValue {
				return DeflateParams{}, "", false
			}
			serverNoCT = true
		case "client_no_context_takeover":
			if clientNoCT || p.hasValue {
				return DeflateParams{}, "", false
			}
			clientNoCT = true
		case "server_max_window_bits":
			bits, ok := windowBits(p.value)
			if seenServerMWB || !p.hasValue || !ok {
				return DeflateParams{}, "", false
			}
			seenServerMWB, serverBits = true, bits
		case "client_max_window_bits":
			if seenClMWB {
				return DeflateParams{}, "", false
			}
			seenClMWB, clientBits = true, maxWindowBits
			if p.hasValue {
				bits, ok := windowBits(p.value)
				if !ok {
					return DeflateParams{}, "", false
				}
				clientBits = bits
			}
		default:
			return DeflateParams{}, "", false
		}
	}
	if seenServerMWB && serverBits < maxWindowBits {
		return DeflateParams{}, "", false // compress/flate's window is always 2^15
	}
	p := DeflateParams{
		ServerNoContextTakeover: serverNoCT || cfg.ServerNoContextTakeover,
		ClientNoContextTakeover: clientNoCT || cfg.ClientNoContextTakeover,
		ServerMaxWindowBits:     maxWindowBits,
		ClientMaxWindowBits:     maxWindowBits,
		Level:                   cfg.Level,
	}
	var b strings.Builder
	b.WriteString(ExtensionName)
	if p.ServerNoContextTakeover {
		b.WriteString("; server_no_context_takeover")
	}
	if p.ClientNoContextTakeover {
		b.WriteString("; client_no_context_takeover")
	}
	if seenServerMWB {
		b.WriteString("; server_max_window_bits=15")
	}
	if seenClMWB {
		p.ClientMaxWindowBits = clientBits
		if cfg.ClientMaxWindowBits >= minWindowBits && cfg.ClientMaxWindowBits <= maxWindowBits {
			p.ClientMaxWindowBits = min(clientBits, cfg.ClientMaxWindowBits)
			b.WriteString("; client_max_window_bits=")
			b.WriteString(itoa(p.ClientMaxWindowBits))
		}
	}
	return p, b.String(), true
}

// windowBits parses a max_window_bits value: 8-15 in decimal without a
// leading zero (RFC 7692 section 7.1.2).
func windowBits(v string) (int, bool) {
	switch len(v) {
	case 1:
		if v[0] >= '8' && v[0] <= '9' {
			return int(v[0] - '0'), true
		}
	case 2:
		if v[0] == '1' && v[1] >= '0' && v[1] <= '5' {
			return 10 + int(v[1]-'0'), true
		}
	}
	return 0, false
}

// flateLevel maps a Level (0: BestSpeed) to compress/flate's.
func flateLevel(level int) int {
	if level == 0 || level < flate.HuffmanOnly || level > flate.BestCompression {
		return flate.BestSpeed
	}
	return level
}

// ParseDeflateResponse reads a server's Sec-WebSocket-Extensions response
// to a permessage-deflate offer, for a client (tests, benchmark clients):
// the agreement, and false when the response is not a single valid
// permessage-deflate element, or asks for client_max_window_bits below 15
// (this package's client compressor cannot honour it).
func ParseDeflateResponse(value string) (DeflateParams, bool) {
	exts := parseExtensions([]string{value})
	if len(exts) != 1 || !exts[0].ok || !strings.EqualFold(exts[0].name, ExtensionName) {
		return DeflateParams{}, false
	}
	p := DeflateParams{ServerMaxWindowBits: maxWindowBits, ClientMaxWindowBits: maxWindowBits}
	seen := map[string]bool{}
	for _, prm := range exts[0].params {
		name := strings.ToLower(prm.name)
		if seen[name] {
			return DeflateParams{}, false
		}
		seen[name] = true
		switch name {
		case "server_no_context_takeover", "client_no_context_takeover":
			if prm.hasValue {
				return DeflateParams{}, false
			}
			if name == "server_no_context_takeover" {
				p.ServerNoContextTakeover = true
			} else {
				p.ClientNoContextTakeover = true
			}
		case "server_max_window_bits", "client_max_window_bits":
			bits, ok := windowBits(prm.value)
			if !prm.hasValue || !ok {
				return DeflateParams{}, false
			}
			if name == "server_max_window_bits" {
				p.ServerMaxWindowBits = bits
			} else if p.ClientMaxWindowBits = bits; bits < maxWindowBits {
				return DeflateParams{}, false
			}
		default:
			return DeflateParams{}, false
		}
	}
	return p, true
}
