package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

func TestRoutes(t *testing.T) {
	srv := httptest.NewServer(handler())
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "Hello, World!" {
		t.Fatalf("GET /: %d %q", resp.StatusCode, b)
	}

	resp, err = http.Post(srv.URL+"/upload", "application/octet-stream", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	sum := sha256.Sum256([]byte("hello"))
	if want := `{"bytes":5,"sha256":"` + hex.EncodeToString(sum[:]) + "\"}\n"; resp.StatusCode != 200 || string(b) != want {
		t.Fatalf("POST /upload: %d %q, want %q", resp.StatusCode, b, want)
	}

	resp, err = http.Get(srv.URL + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /debug/pprof/: %d", resp.StatusCode)
	}

	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteMessage(websocket.BinaryMessage, []byte("echo me")); err != nil {
		t.Fatal(err)
	}
	if mt, msg, err := c.ReadMessage(); err != nil || mt != websocket.BinaryMessage || string(msg) != "echo me" {
		t.Fatalf("/ws echo: %d %q %v", mt, msg, err)
	}
}
