package websocket

import (
	"reflect"
	"testing"
)

func TestNegotiateDeflate(t *testing.T) {
	full := DeflateParams{ServerMaxWindowBits: 15, ClientMaxWindowBits: 15}
	with := func(f func(*DeflateParams)) DeflateParams { p := full; f(&p); return p }
	cases := []struct {
		name   string
		offers []string
		cfg    DeflateConfig
		ok     bool
		resp   string
		params DeflateParams
	}{
		{"none", nil, DeflateConfig{}, false, "", DeflateParams{}},
		{"other extension only", []string{"x-webkit-deflate-frame"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"plain offer", []string{"permessage-deflate"}, DeflateConfig{}, true, "permessage-deflate", full},
		{"browser offer", []string{"permessage-deflate; client_max_window_bits"}, DeflateConfig{}, true, "permessage-deflate", full},
		{"browser offer, server limits client window", []string{"permessage-deflate; client_max_window_bits"}, DeflateConfig{ClientMaxWindowBits: 10}, true,
			"permessage-deflate; client_max_window_bits=10", with(func(p *DeflateParams) { p.ClientMaxWindowBits = 10 })},
		{"client window smaller than the server's wish", []string{"permessage-deflate; client_max_window_bits=9"}, DeflateConfig{ClientMaxWindowBits: 12}, true,
			"permessage-deflate; client_max_window_bits=9", with(func(p *DeflateParams) { p.ClientMaxWindowBits = 9 })},
		{"client window offered, not answered", []string{"permessage-deflate; client_max_window_bits=10"}, DeflateConfig{}, true,
			"permessage-deflate", with(func(p *DeflateParams) { p.ClientMaxWindowBits = 10 })},
		{"server window not offered: client_max_window_bits not answered", []string{"permessage-deflate"}, DeflateConfig{ClientMaxWindowBits: 10}, true, "permessage-deflate", full},
		{"no context takeover both asked", []string{"permessage-deflate; server_no_context_takeover; client_no_context_takeover"}, DeflateConfig{}, true,
			"permessage-deflate; server_no_context_takeover; client_no_context_takeover",
			with(func(p *DeflateParams) { p.ServerNoContextTakeover, p.ClientNoContextTakeover = true, true })},
		{"server decides no takeover", []string{"permessage-deflate"}, DeflateConfig{ServerNoContextTakeover: true, ClientNoContextTakeover: true, Level: 5}, true,
			"permessage-deflate; server_no_context_takeover; client_no_context_takeover",
			with(func(p *DeflateParams) { p.ServerNoContextTakeover, p.ClientNoContextTakeover, p.Level = true, true, 5 })},
		{"server_max_window_bits=15 echoed", []string{"permessage-deflate; server_max_window_bits=15"}, DeflateConfig{}, true, "permessage-deflate; server_max_window_bits=15", full},
		{"quoted value with an escape", []string{`permessage-deflate; server_max_window_bits="1\5"`}, DeflateConfig{}, true, "permessage-deflate; server_max_window_bits=15", full},
		{"quoted value not a token", []string{`permessage-deflate; client_max_window_bits="1 5"`}, DeflateConfig{}, false, "", DeflateParams{}},
		{"quoted value", []string{`permessage-deflate; server_max_window_bits="15"`}, DeflateConfig{}, true, "permessage-deflate; server_max_window_bits=15", full},
		{"first offer declined (server window 10), second taken",
			[]string{"permessage-deflate; server_max_window_bits=10, permessage-deflate"}, DeflateConfig{}, true, "permessage-deflate", full},
		{"offers over two header values", []string{"permessage-deflate; server_max_window_bits=8", "permessage-deflate; client_no_context_takeover"}, DeflateConfig{}, true,
			"permessage-deflate; client_no_context_takeover", with(func(p *DeflateParams) { p.ClientNoContextTakeover = true })},
		{"unsupported server window only", []string{"permessage-deflate; server_max_window_bits=12"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"duplicate parameter", []string{"permessage-deflate; server_no_context_takeover; server_no_context_takeover"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"duplicate client_max_window_bits", []string{"permessage-deflate; client_max_window_bits; client_max_window_bits=10"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"unknown parameter", []string{"permessage-deflate; foo=1"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"value on a flag", []string{"permessage-deflate; client_no_context_takeover=1"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"server_max_window_bits without value", []string{"permessage-deflate; server_max_window_bits"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"window 7", []string{"permessage-deflate; client_max_window_bits=7"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"window 16", []string{"permessage-deflate; server_max_window_bits=16"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"window with leading zero", []string{"permessage-deflate; server_max_window_bits=015"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"window not a number", []string{"permessage-deflate; client_max_window_bits=abc"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"malformed then good", []string{`permessage-deflate; client_max_window_bits="1`, "permessage-deflate"}, DeflateConfig{}, true, "permessage-deflate", full},
		{"bad token", []string{"permessage deflate"}, DeflateConfig{}, false, "", DeflateParams{}},
		{"case-insensitive name", []string{"Permessage-Deflate"}, DeflateConfig{}, true, "permessage-deflate", full},
		{"comma inside a quoted value of another extension", []string{`x-foo; a="b,c", permessage-deflate`}, DeflateConfig{}, true, "permessage-deflate", full},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, resp, ok := NegotiateDeflate(c.offers, c.cfg)
			if ok != c.ok || resp != c.resp || !reflect.DeepEqual(p, c.params) {
				t.Fatalf("got %v %q %+v\nwant %v %q %+v", ok, resp, p, c.ok, c.resp, c.params)
			}
		})
	}
}

func TestSelectSubprotocol(t *testing.T) {
	offered := HeaderTokens("chat, superchat", " v2.json ,, ", "")
	if !reflect.DeepEqual(offered, []string{"chat", "superchat", "v2.json"}) {
		t.Fatalf("HeaderTokens: %q", offered)
	}
	for _, c := range []struct {
		supported []string
		want      string
	}{
		{[]string{"superchat", "chat"}, "superchat"}, // the server's preference
		{[]string{"v2.json"}, "v2.json"},
		{[]string{"Chat"}, ""}, // case-sensitive
		{nil, ""},
	} {
		if got := SelectSubprotocol(offered, c.supported); got != c.want {
			t.Errorf("SelectSubprotocol(%q) = %q, want %q", c.supported, got, c.want)
		}
	}
}

// TestParseDeflateResponse reads what NegotiateDeflate answers back into
// the same agreement, and rejects what a client must not accept.
func TestParseDeflateResponse(t *testing.T) {
	for _, offer := range []string{
		"permessage-deflate",
		"permessage-deflate; server_no_context_takeover; client_no_context_takeover",
		"permessage-deflate; server_max_window_bits=15; client_max_window_bits",
	} {
		want, resp, ok := NegotiateDeflate([]string{offer}, DeflateConfig{})
		got, ok2 := ParseDeflateResponse(resp)
		if !ok || !ok2 || !reflect.DeepEqual(got, want) {
			t.Errorf("%q -> %q -> %+v, want %+v", offer, resp, got, want)
		}
	}
	p, ok := ParseDeflateResponse("permessage-deflate; server_max_window_bits=10")
	if !ok || p.ServerMaxWindowBits != 10 {
		t.Errorf("server window 10: %+v %v", p, ok)
	}
	for _, bad := range []string{
		"", "x-other", "permessage-deflate, permessage-deflate",
		"permessage-deflate; client_max_window_bits=10", // our client compresses with 2^15
		"permessage-deflate; server_no_context_takeover; server_no_context_takeover",
		"permessage-deflate; client_max_window_bits", "permessage-deflate; foo",
	} {
		if _, ok := ParseDeflateResponse(bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestAppendHeader(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		p := make([]byte, n)
		if got, want := append(AppendHeader(nil, OpBinary, true, n), p...), AppendFrame(nil, OpBinary, true, p); string(got) != string(want) {
			t.Fatalf("len %d: header differs", n)
		}
	}
}
