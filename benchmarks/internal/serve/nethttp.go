package serve

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
)

// NetHTTP serves h with net/http on the addresses f names until SIGTERM or
// SIGINT, announcing each: plaintext (HTTP/1.1 and h2c by prior
// knowledge) on f.Addr, HTTPS (HTTP/1.1 and h2 through ALPN) on f.TLSAddr.
// A failure ends the process with a message naming the server, name.
func NetHTTP(name string, f *Flags, h http.Handler) {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	errc := make(chan error, 2)
	if f.Addr != "" {
		ln, err := net.Listen("tcp", f.Addr)
		if err != nil {
			Fatal(name, err)
		}
		srv := &http.Server{Handler: h, Protocols: protocols}
		go func() { errc <- srv.Serve(ln) }()
		Announce("http", ln.Addr().String())
	}
	if f.TLSAddr != "" {
		certPEM, keyPEM, err := f.KeyPair()
		if err != nil {
			Fatal(name, err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			Fatal(name, err)
		}
		ln, err := net.Listen("tcp", f.TLSAddr)
		if err != nil {
			Fatal(name, err)
		}
		srv := &http.Server{Handler: h, Protocols: protocols,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}}
		go func() { errc <- srv.ServeTLS(ln, "", "") }()
		Announce("https", ln.Addr().String())
	}
	if f.Addr == "" && f.TLSAddr == "" {
		Fatal(name, errors.New("both -addr and -tls-addr are empty"))
	}
	go func() { WaitSignal(); errc <- nil }()
	if err := <-errc; err != nil {
		Fatal(name, err)
	}
}
