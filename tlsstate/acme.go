package tlsstate

// ProtoACMETLS is the ALPN protocol of the ACME TLS-ALPN-01 challenge
// (RFC 8737). An ACME server validating a name connects offering only this
// protocol; the certificate the handshake presents (the challenge
// certificate, from GetCertificate) is the whole answer, and the client
// closes without sending application data.
const ProtoACMETLS = "acme-tls/1"

// ACMEChallenge reports whether the handshake negotiated ProtoACMETLS. Such
// a connection carries no application data: the engine should CloseNotify
// and close it. It is false until Process has reported the connection
// established. Loop only.
func (c *Conn) ACMEChallenge() bool { return c.acme }
