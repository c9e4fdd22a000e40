package websocket

// CloseCode is the status code of a close frame (RFC 6455 section 7.4).
type CloseCode uint16

// Close codes from RFC 6455 section 7.4.1. CloseNoStatus and CloseAbnormal
// are never sent: they report a close frame without a code and a
// connection that ended without a close frame.
const (
	CloseNormal             CloseCode = 1000
	CloseGoingAway          CloseCode = 1001
	CloseProtocolError      CloseCode = 1002
	CloseUnsupportedData    CloseCode = 1003
	CloseNoStatus           CloseCode = 1005
	CloseAbnormal           CloseCode = 1006
	CloseInvalidPayload     CloseCode = 1007
	ClosePolicyViolation    CloseCode = 1008
	CloseMessageTooBig      CloseCode = 1009
	CloseMandatoryExtension CloseCode = 1010
	CloseInternalError      CloseCode = 1011
)

// ValidCloseCode reports whether c may appear in a close frame on the
// wire: 1000-1003 and 1007-1011 (RFC 6455 section 7.4.1), 1012-1014
// (service restart, try again later, bad gateway: registered with IANA
// after RFC 6455 and sent by servers and proxies; browsers accept them)
// and 3000-4999 (libraries, frameworks and applications, section 7.4.2).
// 1004, 1005, 1006 and 1015 (reserved, never sent), every other code below
// 3000 and every code from 5000 are invalid.
func ValidCloseCode(c CloseCode) bool {
	switch {
	case c >= 1000 && c <= 1003:
		return true
	case c >= 1007 && c <= 1014:
		return true
	case c >= 3000 && c <= 4999:
		return true
	}
	return false
}

// CloseError is a protocol failure found by a [Reader]: the code and reason
// of the close frame to send before closing the connection.
type CloseError struct {
	Code   CloseCode
	Reason string
}

// Error returns "websocket: " and the reason with the code.
func (e *CloseError) Error() string {
	return "websocket: " + e.Reason + " (close " + itoa(int(e.Code)) + ")"
}
