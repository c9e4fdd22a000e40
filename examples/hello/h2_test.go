package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/h2spectest"
)

// h2spec in strict mode against the example with -http2 (the default):
// every case passes, over TLS and over h2c.
func TestH2specHello(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	app := gwist.New(gwist.WithHTTP2(true))
	routes(app)
	static(app, "")
	plain, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlsConfig("", "")
	if err != nil {
		t.Fatal(err)
	}
	secure, err := app.StartTLS("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = app.Shutdown(ctx)
	})
	t.Run("TLS", func(t *testing.T) { h2spectest.Run(t, secure.String(), "-t", "-k") })
	t.Run("h2c", func(t *testing.T) {
		h2spectest.Run(t, plain.String())
	})
}

// Every streaming route of the example over h2c (prior knowledge): /events,
// /download and a 10 MiB /upload whose body streams.
func TestStreamingRoutesOverHTTP2(t *testing.T) {
	base := startHello(t, gwist.WithHTTP2(true))
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: p}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	get := func(path string) (*http.Response, []byte) {
		resp, err := cl.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	if resp, b := get("/events?n=3&ms=10"); resp.ProtoMajor != 2 || string(b) != "id: 1\ndata: 1\n\nid: 2\ndata: 2\n\nid: 3\ndata: 3\n\n" {
		t.Fatalf("/events: %s %q", resp.Proto, b)
	}
	if resp, b := get("/download?bytes=5242883"); resp.ProtoMajor != 2 || len(b) != 5242883 {
		t.Fatalf("/download: %s %d bytes", resp.Proto, len(b))
	}
	payload := bytes.Repeat([]byte("upload over h2 "), 700000) // ~10 MiB
	resp, err := cl.Post(base+"/upload", "application/octet-stream", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sum := sha256.Sum256(payload)
	if want := fmt.Sprintf(`{"bytes":%d,"sha256":"%s"}`, len(payload), hex.EncodeToString(sum[:])); resp.ProtoMajor != 2 || strings.TrimSpace(string(b)) != want {
		t.Fatalf("/upload: %s %d %q", resp.Proto, resp.StatusCode, b)
	}
}

// HEAD /events answers 200 with the GET's head (no 500), over HTTP/1.1
// and HTTP/2 (h2c), as net/http does.
func TestEventsHead(t *testing.T) {
	base := startHello(t, gwist.WithHTTP2(true))
	for _, h2 := range []bool{false, true} {
		p := new(http.Protocols)
		if h2 {
			p.SetUnencryptedHTTP2(true)
		} else {
			p.SetHTTP1(true)
		}
		tr := &http.Transport{Protocols: p}
		resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Head(base + "/events")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tr.CloseIdleConnections()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2] {
			t.Fatalf("HEAD /events: %s %d %v", resp.Proto, resp.StatusCode, resp.Header)
		}
	}
}
