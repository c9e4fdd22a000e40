package http2

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"

	xh2 "golang.org/x/net/http2"
)

// h2cTransport is x/net's HTTP/2 client speaking h2c by prior knowledge.
func h2cTransport() *xh2.Transport {
	return &xh2.Transport{
		AllowHTTP: true,
		DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}
}

func TestGoClientGetAndPost(t *testing.T) {
	srv := startTCPServer(t, Config{})
	tr := h2cTransport()
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + srv.addr()

	resp, err := client.Get(url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 || string(body) != "hello h2" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Fatalf("GET: %s %d %q %v", resp.Proto, resp.StatusCode, body, resp.Header)
	}

	// A 10 MiB upload: far more than the 1 MiB windows, so it only
	// completes if WINDOW_UPDATEs follow consumption.
	up := make([]byte, 10<<20)
	rand.Read(up)
	sum := sha256.Sum256(up)
	resp, err = client.Post(url+"/upload", "application/octet-stream", bytes.NewReader(up))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := hex.EncodeToString(sum[:]) + " " + strconv.Itoa(len(up)); string(body) != want {
		t.Fatalf("POST answered %q, want %q", body, want)
	}

	// A 10 MiB download, through the client's windows and the queue caps.
	resp, err = client.Get(url + "/?size=" + strconv.Itoa(10<<20))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(body) != 10<<20 || body[len(body)-1] != byte('a'+(10<<20-1)%26) {
		t.Fatalf("download: %d bytes", len(body))
	}
}

func TestGoClientConcurrentStreams(t *testing.T) {
	srv := startTCPServer(t, Config{})
	tr := h2cTransport()
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			size := 1000 * (i + 1)
			resp, err := client.Get(fmt.Sprintf("http://%s/?size=%d", srv.addr(), size))
			if err != nil {
				errs <- err
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if len(b) != size {
				errs <- fmt.Errorf("stream %d: %d bytes, want %d", i, len(b), size)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNetHTTPUnencryptedHTTP2(t *testing.T) {
	srv := startTCPServer(t, Config{})
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	resp, err := client.Post("http://"+srv.addr()+"/p", "text/plain", bytes.NewReader([]byte("abc")))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sum := sha256.Sum256([]byte("abc"))
	if resp.ProtoMajor != 2 || string(body) != hex.EncodeToString(sum[:])+" 3" {
		t.Fatalf("%s %q", resp.Proto, body)
	}
}
