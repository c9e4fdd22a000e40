package gwist

// Protocol is the protocol the request came on: "HTTP/2.0", "HTTP/1.1" or
// "HTTP/1.0". Handlers need not care; it is there for logs and for the
// rare handler that does.
func (c *Ctx) Protocol() string {
	r := &c.ex.Request
	switch {
	case r.ProtoMajor == 2:
		return "HTTP/2.0"
	case r.ProtoMinor == 0:
		return "HTTP/1.0"
	}
	return "HTTP/1.1"
}
