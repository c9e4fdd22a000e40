package http1

import "strconv"

// ResponseHead is what [AppendHead] serializes.
type ResponseHead struct {
	// Status is the status code; one outside 100-999 is written as 500.
	Status int
	// Header holds the handler's fields; it may be nil.
	Header *Header
	// ContentLength is the body length when >= 0. -1 means unknown: the
	// body is sent chunked ("Transfer-Encoding: chunked") when ProtoMinor is
	// 1, and otherwise delimited by closing the connection (AppendHead then
	// writes "Connection: close").
	ContentLength int64
	// ProtoMinor is the request's minor version; the status line always says
	// HTTP/1.1.
	ProtoMinor int
	// KeepAlive false writes "Connection: close"; true on an HTTP/1.0
	// request writes "Connection: keep-alive".
	KeepAlive bool
	// HeadRequest marks the response to a HEAD request: the fields are those
	// of a GET response and the caller writes no body. With ContentLength -1
	// no framing field is written and the connection stays reusable.
	HeadRequest bool
	// Server is the Server field's value; "" writes none (nor does a value
	// that ValidHeaderValue rejects).
	Server string
}

// AppendHead appends the response head to dst: the status line, Date (from
// [Date]), Server, the handler's fields (except Content-Length,
// Transfer-Encoding, Connection and Date, which are the framing's and set
// here), the framing fields and the empty line. 1xx, 204 and 304 responses
// get no Content-Length or Transfer-Encoding. A 1xx response gets no
// Connection field of AppendHead's own but keeps the handler's (a 101 needs
// "Connection: Upgrade"). It allocates nothing when dst has room.
func AppendHead(dst []byte, h *ResponseHead) []byte {
	status := h.Status
	if status < 100 || status > 999 {
		status = 500
	}
	dst = appendStatusLine(dst, status)
	dst = append(dst, "Date: "...)
	dst = Date.Append(dst)
	dst = append(dst, "\r\n"...)
	if h.Server != "" && ValidHeaderValue(h.Server) {
		dst = append(dst, "Server: "...)
		dst = append(dst, h.Server...)
		dst = append(dst, "\r\n"...)
	}
	informational := status < 200
	if h.Header != nil {
		for _, f := range h.Header.fields {
			// A 1xx head carries no framing of ours, so the handler's
			// Connection (e.g. "Upgrade" on a 101) goes through.
			if framingField(f.Name) && !(informational && len(f.Name) == 10) {
				continue
			}
			dst = append(dst, f.Name...)
			dst = append(dst, ": "...)
			dst = append(dst, f.Value...)
			dst = append(dst, "\r\n"...)
		}
	}
	closeConn := !h.KeepAlive
	if !informational && status != 204 && status != 304 {
		switch {
		case h.ContentLength >= 0:
			dst = append(dst, "Content-Length: "...)
			dst = strconv.AppendInt(dst, h.ContentLength, 10)
			dst = append(dst, "\r\n"...)
		case h.HeadRequest:
		case h.ProtoMinor >= 1:
			dst = append(dst, "Transfer-Encoding: chunked\r\n"...)
		default:
			closeConn = true
		}
	}
	if !informational {
		if closeConn {
			dst = append(dst, "Connection: close\r\n"...)
		} else if h.ProtoMinor == 0 {
			dst = append(dst, "Connection: keep-alive\r\n"...)
		}
	}
	return append(dst, "\r\n"...)
}

// appendStatusLine appends "HTTP/1.1 NNN Reason\r\n" (status in 100-999).
func appendStatusLine(dst []byte, status int) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = append(dst, byte('0'+status/100), byte('0'+status/10%10), byte('0'+status%10), ' ')
	dst = append(dst, statusText(status)...)
	return append(dst, "\r\n"...)
}

// framingField reports the fields AppendHead writes itself.
func framingField(name string) bool {
	switch len(name) {
	case 4:
		return equalFold(name, "date")
	case 10:
		return equalFold(name, "connection")
	case 14:
		return equalFold(name, "content-length")
	case 17:
		return equalFold(name, "transfer-encoding")
	}
	return false
}

// AppendContinue appends the interim response "HTTP/1.1 100 Continue".
func AppendContinue(dst []byte) []byte {
	return append(dst, "HTTP/1.1 100 Continue\r\n\r\n"...)
}

// AppendError appends a complete minimal error response for status: a
// text/plain body holding the status text and a newline (the code when the
// status has no text), Content-Length and "Connection: close". When
// retryAfterSeconds > 0 it adds "Retry-After" (meant for 503 and 429). It
// is what to send for a parse [Error] (its Status), an overloaded server
// (503) or a failed handler (500). A status outside 100-999 is written as
// 500.
func AppendError(dst []byte, status int, retryAfterSeconds int) []byte {
	if status < 100 || status > 999 {
		status = 500
	}
	text := statusText(status)
	dst = appendStatusLine(dst, status)
	dst = append(dst, "Date: "...)
	dst = Date.Append(dst)
	dst = append(dst, "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	if text != "" {
		dst = strconv.AppendInt(dst, int64(len(text)+1), 10)
	} else {
		dst = append(dst, '4') // three digits and a newline
	}
	dst = append(dst, "\r\n"...)
	if retryAfterSeconds > 0 {
		dst = append(dst, "Retry-After: "...)
		dst = strconv.AppendInt(dst, int64(retryAfterSeconds), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "Connection: close\r\n\r\n"...)
	if text != "" {
		dst = append(dst, text...)
	} else {
		dst = strconv.AppendInt(dst, int64(status), 10)
	}
	return append(dst, '\n')
}
