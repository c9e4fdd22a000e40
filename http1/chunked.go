package http1

import "strconv"

// AppendChunk appends p as one chunk of a chunked body: its length in hex,
// CRLF, p, CRLF. An empty p appends nothing (an empty chunk would end the
// body).
func AppendChunk(dst, p []byte) []byte {
	if len(p) == 0 {
		return dst
	}
	dst = strconv.AppendUint(dst, uint64(len(p)), 16)
	dst = append(dst, "\r\n"...)
	dst = append(dst, p...)
	return append(dst, "\r\n"...)
}

// AppendLastChunk appends the end of a chunked body: "0" CRLF, the trailer
// fields, CRLF. Trailer fields with an invalid name or value are skipped,
// as are the framing fields (Content-Length, Transfer-Encoding,
// Connection), which must not appear in a trailer.
func AppendLastChunk(dst []byte, trailers []HeaderField) []byte {
	dst = append(dst, "0\r\n"...)
	for _, f := range trailers {
		if !ValidHeaderName(f.Name) || !ValidHeaderValue(f.Value) ||
			(framingField(f.Name) && !equalFold(f.Name, "date")) {
			continue
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}
