// Package cref holds the C reference rows of the benchmark suite, nginx and
// h2o (Debian's packages): their configuration templates (nginx.conf.tmpl,
// h2o.conf.tmpl, checked in beside this file) and how runbench renders and
// starts them. Both answer GET / and GET /json with the bodies and content
// types of examples/hello (JSON with its trailing newline), serve
// StaticDir at /static/, and keep every path (pid, logs, temp) in Dir, so
// they run as any user.
package cref

import (
	"bytes"
	_ "embed"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"text/template"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

//go:embed nginx.conf.tmpl
var nginxTmpl string

//go:embed h2o.conf.tmpl
var h2oTmpl string

// Config is what a rendered configuration depends on.
type Config struct {
	Dir        string // scratch directory: config, pid, lock, temp files
	PlainAddr  string // host:port of the plaintext listener
	TLSAddr    string // host:port of the HTTPS listener ("" none)
	H2C        bool   // nginx: the plaintext port speaks h2c (prior knowledge) instead of HTTP/1.1
	CertFile   string
	KeyFile    string
	StaticDir  string // served at /static/ ("" none)
	Workers    int    // nginx worker_processes, h2o num-threads
	MaxConns   int    // nginx worker_connections, h2o max-connections
	User       string // user directive (only when started as root; "" none)
	HelloBody  string
	JSONBody   string
	JSONBodyNL string
	TextType   string
	JSONType   string
	PlainHost  string
	PlainPort  string
	TLSHost    string
	TLSPort    string
}

// Server is one C reference server.
type Server struct {
	Name    string // row name and executable
	Package string // Debian package that provides it
	tmpl    string
}

// Nginx and H2O are the two reference servers.
var (
	Nginx = Server{Name: "nginx", Package: "nginx-light", tmpl: nginxTmpl}
	H2O   = Server{Name: "h2o", Package: "h2o", tmpl: h2oTmpl}
	All   = []Server{Nginx, H2O}
)

// ByName returns the server called name.
func ByName(name string) (Server, bool) {
	for _, s := range All {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}

func (c *Config) fill() error {
	c.HelloBody, c.JSONBody, c.JSONBodyNL = serve.HelloBody, serve.JSONBody, serve.JSONBody+"\n"
	c.TextType, c.JSONType = serve.TextType, serve.JSONType
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.MaxConns <= 0 {
		c.MaxConns = 16384
	}
	var err error
	if c.PlainHost, c.PlainPort, err = net.SplitHostPort(c.PlainAddr); err != nil {
		return err
	}
	if c.TLSAddr != "" {
		if c.TLSHost, c.TLSPort, err = net.SplitHostPort(c.TLSAddr); err != nil {
			return err
		}
	}
	return nil
}

// Render returns the server's configuration for c.
func (s Server) Render(c Config) ([]byte, error) {
	if err := c.fill(); err != nil {
		return nil, err
	}
	t, err := template.New(s.Name).Parse(s.tmpl)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, c); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Prepare renders the configuration into c.Dir and returns the command
// line (executable first) that runs the server in the foreground.
func (s Server) Prepare(c Config) ([]string, error) {
	if os.Geteuid() == 0 && c.User == "" {
		c.User = "root" // otherwise both drop to nobody, who cannot read the scratch dir
	}
	conf, err := s.Render(c)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(c.Dir, s.Name+".conf")
	if err := os.WriteFile(path, conf, 0o644); err != nil {
		return nil, err
	}
	return s.Command(c.Dir)
}

// Command is the command line that runs the server in the foreground with
// the configuration Prepare wrote into dir.
func (s Server) Command(dir string) ([]string, error) {
	path := filepath.Join(dir, s.Name+".conf")
	switch s.Name {
	case "nginx":
		return []string{"nginx", "-e", "stderr", "-p", dir + "/", "-c", path}, nil
	case "h2o":
		return []string{"h2o", "-m", "worker", "-c", path}, nil
	}
	return nil, fmt.Errorf("cref: unknown server %q", s.Name)
}
