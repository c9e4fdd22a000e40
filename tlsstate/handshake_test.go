package tlsstate

import (
	"crypto/tls"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestHandshakeVersions(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			e := newEnv(t, Config{})
			cc := clientTLS(t)
			cc.MinVersion, cc.MaxVersion = v, v
			cli, l, err := e.dial(cc)
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			echo(t, cli, "hello over "+tls.VersionName(v))
			l.do(func(c *Conn) {
				if got := c.State(); got != Established {
					t.Errorf("State = %v, want established", got)
				}
				in := c.Info()
				if in.Version != v {
					t.Errorf("Info.Version = %x, want %x", in.Version, v)
				}
				if in.NegotiatedProtocol != "" {
					t.Errorf("ALPN = %q without client ALPN", in.NegotiatedProtocol)
				}
				if in.Resumed {
					t.Error("first connection reported resumed")
				}
				if in.ServerName != "a.example" {
					t.Errorf("ServerName = %q", in.ServerName)
				}
				tm := c.Timings()
				if tm.Handshake() <= 0 || tm.EstablishedAt.Before(tm.FirstByteAt) {
					t.Errorf("bad timings %+v", tm)
				}
				c.MarkFirstResponse(time.Now())
			})
			st := e.s.Stats()
			if st.Full != 1 || st.ByVersion[tls.VersionName(v)] != 1 || st.Responses != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestResumption(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			e := newEnv(t, Config{})
			cc := clientTLS(t)
			cc.MaxVersion = v
			cc.ClientSessionCache = tls.NewLRUClientSessionCache(4)
			for i, wantResumed := range []bool{false, true} {
				cli, l, err := e.dial(cc)
				if err != nil {
					t.Fatal(err)
				}
				// The echo makes the TLS 1.3 client read its tickets.
				echo(t, cli, "ping")
				if got := cli.ConnectionState().DidResume; got != wantResumed {
					t.Fatalf("conn %d: client DidResume = %v", i, got)
				}
				l.do(func(c *Conn) {
					if got := c.Info().Resumed; got != wantResumed {
						t.Errorf("conn %d: Info().Resumed = %v, want %v", i, got, wantResumed)
					}
				})
				cli.Close()
				l.wait(t)
			}
			if st := e.s.Stats(); st.Full != 1 || st.Resumed != 1 {
				t.Errorf("Full=%d Resumed=%d, want 1 and 1", st.Full, st.Resumed)
			}
		})
	}
}

func TestSNI(t *testing.T) {
	p := getPKI(t)
	scfg := &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		switch h.ServerName {
		case "a.example":
			return &p.a, nil
		case "b.example":
			return &p.b, nil
		}
		return nil, errors.New("unknown server name")
	}}
	e := newEnv(t, Config{TLS: scfg})
	for _, name := range []string{"a.example", "b.example"} {
		cc := clientTLS(t)
		cc.ServerName = name // verification fails unless the right cert is served
		cli, l, err := e.dial(cc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := cli.ConnectionState().PeerCertificates[0].Subject.CommonName; got != name {
			t.Errorf("served %q for SNI %q", got, name)
		}
		echo(t, cli, name)
		l.do(func(c *Conn) {
			if got := c.Info().ServerName; got != name {
				t.Errorf("Info().ServerName = %q, want %q", got, name)
			}
		})
		cli.Close()
	}
	cc := clientTLS(t)
	cc.ServerName = "c.example"
	if _, l, err := e.dial(cc); err == nil {
		t.Fatal("unknown SNI handshake succeeded")
	} else if r := reasonOf(l.wait(t)); r != ReasonHandshakeError && r != ReasonAlert {
		t.Errorf("unknown SNI: reason %v", r)
	}
}

func TestALPN(t *testing.T) {
	both := []string{"h2", "http/1.1"}
	cases := []struct {
		name        string
		server, cli []string
		want        string
		wantFailure bool
	}{
		{"h2 preferred", both, both, "h2", false},
		{"client http1 only", both, []string{"http/1.1"}, "http/1.1", false},
		{"default server protos", nil, both, "http/1.1", false},
		{"no overlap", nil, []string{"h2"}, "", true},
		{"acme-tls/1", append(both, ProtoACMETLS), []string{ProtoACMETLS}, ProtoACMETLS, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			scfg := serverTLS(t)
			scfg.NextProtos = tc.server
			e := newEnv(t, Config{TLS: scfg})
			cc := clientTLS(t)
			cc.NextProtos = tc.cli
			cli, l, err := e.dial(cc)
			if tc.wantFailure {
				if err == nil {
					t.Fatal("handshake succeeded without a common protocol")
				}
				if r := reasonOf(l.wait(t)); r != ReasonHandshakeError {
					t.Errorf("reason %v, want handshake_error", r)
				}
				if st := e.s.Stats(); st.Failed["handshake_error"] != 1 {
					t.Errorf("Failed = %v", st.Failed)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			if got := cli.ConnectionState().NegotiatedProtocol; got != tc.want {
				t.Errorf("client ALPN %q, want %q", got, tc.want)
			}
			echo(t, cli, "x")
			l.do(func(c *Conn) {
				if got := c.Info().NegotiatedProtocol; got != tc.want {
					t.Errorf("Info ALPN %q, want %q", got, tc.want)
				}
				if got := c.ACMEChallenge(); got != (tc.want == ProtoACMETLS) {
					t.Errorf("ACMEChallenge() = %v with ALPN %q", got, tc.want)
				}
			})
			if st := e.s.Stats(); st.ByALPN[tc.want] != 1 {
				t.Errorf("ByALPN = %v", st.ByALPN)
			}
		})
	}
}

func TestClientCertificates(t *testing.T) {
	p := getPKI(t)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			scfg := serverTLS(t)
			scfg.ClientAuth = tls.RequireAndVerifyClientCert
			scfg.ClientCAs = p.pool
			e := newEnv(t, Config{TLS: scfg})

			cc := clientTLS(t)
			cc.MaxVersion = v
			cc.Certificates = []tls.Certificate{p.client}
			cli, l, err := e.dial(cc)
			if err != nil {
				t.Fatal(err)
			}
			echo(t, cli, "authenticated")
			l.do(func(c *Conn) {
				pc := c.Info().PeerCertificates
				if len(pc) == 0 || pc[0].Subject.CommonName != "client-1" {
					t.Errorf("PeerCertificates = %v", pc)
				}
			})
			cli.Close()

			// Without a certificate the server refuses and says why.
			cc.Certificates = nil
			cli, l, err = e.dial(cc)
			if err == nil {
				// TLS 1.3 clients finish before the server has judged them.
				_, err = cli.Read(make([]byte, 1))
			}
			// The server's alert reached the client ("handshake failure"
			// in TLS 1.2, "certificate required" in TLS 1.3).
			if err == nil || !strings.Contains(err.Error(), "remote error") {
				t.Errorf("client error %v, want the server's alert", err)
			}
			if r := reasonOf(l.wait(t)); r != ReasonHandshakeError {
				t.Errorf("reason %v, want handshake_error", r)
			}
		})
	}
}

func TestCloseNotify(t *testing.T) {
	t.Run("server first", func(t *testing.T) {
		e := newEnv(t, Config{})
		cli, l, err := e.dial(clientTLS(t))
		if err != nil {
			t.Fatal(err)
		}
		echo(t, cli, "a")
		l.do(func(c *Conn) {
			c.CloseNotify()
			if c.State() != Closing {
				t.Errorf("after CloseNotify: %v", c.State())
			}
			if err := c.Write([]byte("late")); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after CloseNotify: %v", err)
			}
			l.flush()
		})
		if _, err := cli.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("client read %v, want EOF (close_notify)", err)
		}
		cli.Close() // sends the client's close_notify
		if err := l.wait(t); err != io.EOF {
			t.Fatalf("server loop ended with %v, want EOF", err)
		}
		if s := l.c.State(); s != Closed {
			t.Errorf("final state %v", s)
		}
	})
	t.Run("client first", func(t *testing.T) {
		e := newEnvPlain(t, Config{}, func(*loop, []byte) {})
		cli, l, err := e.dial(clientTLS(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Write([]byte("a")); err != nil {
			t.Fatal(err)
		}
		if err := cli.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		// The test loop answers Process's io.EOF with CloseNotify.
		if _, err := cli.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("client read %v, want EOF", err)
		}
		if err := l.wait(t); err != io.EOF {
			t.Fatalf("server loop ended with %v", err)
		}
		if s := l.c.State(); s != Closed {
			t.Errorf("state %v after both close_notify", s)
		}
	})
	t.Run("states by hand", func(t *testing.T) {
		s := newServer(t, Config{})
		cli, c, m := handshakeByHand(t, s, clientTLS(t))
		if err := cli.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if err := c.Feed(m.take()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Process(nil); err != io.EOF {
			t.Fatalf("Process = %v, want EOF", err)
		}
		if c.State() != Closing {
			t.Fatalf("after peer close_notify: %v", c.State())
		}
		if _, err := c.Process(nil); err != io.EOF {
			t.Fatalf("second Process = %v, want EOF again", err)
		}
		// Half-closed: the server may still answer before closing.
		if err := c.Write([]byte("bye")); err != nil {
			t.Fatal(err)
		}
		c.CloseNotify()
		if c.State() != Closed {
			t.Fatalf("after both close_notify: %v", c.State())
		}
		m.give(c.AppendOutbound(nil))
		got, err := io.ReadAll(cli)
		if string(got) != "bye" || err != nil {
			t.Fatalf("client read %q, %v; want \"bye\" then EOF", got, err)
		}
	})
}
