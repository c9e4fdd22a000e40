package gwist_test

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// tlsView is what the test routes report of a connection's TLS state.
type tlsView struct {
	Present    bool
	Version    uint16
	Cipher     uint16
	ServerName string
	ALPN       string
	Complete   bool
	PeerCN     string
	Chains     int
	Same       bool // c.TLS() twice in a request gives the same value
}

func viewOf(cs *tls.ConnectionState) tlsView {
	if cs == nil {
		return tlsView{}
	}
	v := tlsView{Present: true, Version: cs.Version, Cipher: cs.CipherSuite, ServerName: cs.ServerName,
		ALPN: cs.NegotiatedProtocol, Complete: cs.HandshakeComplete, Chains: len(cs.VerifiedChains)}
	if len(cs.PeerCertificates) > 0 {
		v.PeerCN = cs.PeerCertificates[0].Subject.CommonName
	}
	return v
}

func tlsStateApp() *gwist.App {
	app := gwist.New()
	app.GET("/state", func(c *gwist.Ctx) error {
		v := viewOf(c.TLS())
		v.Same = c.TLS() == c.TLS()
		return c.JSON(200, v)
	})
	app.GET("/wrapped", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(viewOf(r.TLS))
	}))
	return app
}

// c.TLS() and a wrapped handler's r.TLS give the connection's state, with
// the client certificate, on every request of a keep-alive connection.
// (That the state is the same after the connection idled on the sweep and
// its TLS buffers were trimmed is engine.TestIdleTLSTrimKeepsState, on the
// engine's clock.)
func TestCtxTLSState(t *testing.T) {
	p := getPKI(t)
	cfg := serverTLSConfig(t)
	cfg.ClientAuth = tls.VerifyClientCertIfGiven
	cfg.ClientCAs = p.pool
	addr := startTLS(t, tlsStateApp(), cfg)

	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.pool, ServerName: "a.test", MaxVersion: v, NextProtos: []string{"http/1.1"},
			Certificates: []tls.Certificate{p.client}}, MaxConnsPerHost: 1}
		t.Cleanup(tr.CloseIdleConnections)
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		for i, path := range []string{"/state", "/wrapped", "/state", "/wrapped"} {
			reused := false
			req, _ := http.NewRequest("GET", "https://"+addr+path, nil)
			req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
				GotConn: func(ci httptrace.GotConnInfo) { reused = ci.Reused },
			}))
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var got tlsView
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			want := tlsView{Present: true, Version: v, Cipher: resp.TLS.CipherSuite, ServerName: "a.test",
				ALPN: "http/1.1", Complete: true, PeerCN: "client", Chains: 1, Same: path == "/state"}
			if got != want {
				t.Fatalf("%s request %d %s:\n got %+v\nwant %+v", tls.VersionName(v), i, path, got, want)
			}
			if i > 0 && !reused {
				t.Fatalf("request %d did not reuse the connection", i)
			}
		}
	}

	// Without a client certificate: no peer, no chains.
	client := httpsClient(t, &tls.Config{ServerName: "a.test"})
	_, body := get(t, client, "https://"+addr+"/state")
	var got tlsView
	if err := json.Unmarshal([]byte(body), &got); err != nil || !got.Present || got.PeerCN != "" || got.Chains != 0 {
		t.Fatalf("no client certificate: %+v %v", got, err)
	}
}

func TestCtxTLSNilOnPlaintext(t *testing.T) {
	addr := startApp(t, tlsStateApp())
	client := newClient(t)
	for _, path := range []string{"/state", "/wrapped"} {
		_, body := get(t, client, "http://"+addr+path)
		var got tlsView
		if err := json.Unmarshal([]byte(body), &got); err != nil || got.Present {
			t.Fatalf("%s on plaintext: %+v %v", path, got, err)
		}
	}
}
