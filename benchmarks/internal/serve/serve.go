// Package serve holds what the peer benchmark servers share: their flags,
// the bodies and content types of the three routes, and the "listening on"
// line the runner waits for. Keeping it in one place keeps every server's
// responses byte-for-byte alike where the frameworks allow it.
package serve

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gwist/gwist/benchmarks/internal/certs"
)

// The three routes every server answers.
const (
	// HelloPath answers GET with HelloBody as TextType.
	HelloPath = "/"
	// JSONPath answers GET with JSONBody as JSONType.
	JSONPath = "/json"
	// EchoPath answers POST with the request body and the request's Content-Type.
	EchoPath = "/echo"
	// EventsPath answers GET with Server-Sent Events, as examples/hello's
	// /events does: n events (default 3) ms milliseconds apart (default 100).
	EventsPath = "/events"
)

// Bodies and content types of the routes.
const (
	// HelloBody is the body of GET /.
	HelloBody = "Hello, World!"
	// JSONBody is the body of GET /json.
	JSONBody = `{"message":"Hello, World!"}`
	// TextType is the Content-Type of GET /.
	TextType = "text/plain; charset=utf-8"
	// JSONType is the Content-Type of GET /json.
	JSONType = "application/json"
)

// MaxEchoBody bounds the body POST /echo reads.
const MaxEchoBody = 8 << 20

// Flags are the command-line flags shared by the benchmark servers.
type Flags struct {
	Addr     string // -addr: plaintext listen address; empty turns it off
	TLSAddr  string // -tls-addr: HTTPS listen address; empty turns it off
	CertFile string // -cert: PEM certificate file
	KeyFile  string // -key: PEM key file
}

// RegisterFlags defines -addr, -tls-addr, -cert and -key on fs, with
// defaultAddr as the default of -addr.
func RegisterFlags(fs *flag.FlagSet, defaultAddr string) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Addr, "addr", defaultAddr, "plaintext listen address (empty: off)")
	fs.StringVar(&f.TLSAddr, "tls-addr", "", "HTTPS listen address (empty: off)")
	fs.StringVar(&f.CertFile, "cert", "", "PEM certificate file (default: in-memory self-signed ECDSA P-256)")
	fs.StringVar(&f.KeyFile, "key", "", "PEM private key file")
	return f
}

// KeyPair returns the PEM certificate and key named by -cert and -key, or a
// generated in-memory pair when neither is set.
func (f *Flags) KeyPair() (certPEM, keyPEM []byte, err error) {
	return certs.Load(f.CertFile, f.KeyFile)
}

// Announce prints the line the runner waits for: "listening on scheme://addr".
func Announce(scheme, addr string) {
	fmt.Printf("listening on %s://%s\n", scheme, addr)
}

// Fatal prints err prefixed with the program name to stderr and exits 1.
func Fatal(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}

// WaitSignal blocks until SIGINT or SIGTERM arrives.
func WaitSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	<-ch
}
