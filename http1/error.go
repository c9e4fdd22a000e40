package http1

import "strconv"

// Error is a framing or limit violation found by the [Parser]. Status is the
// response code to send before closing the connection; Reason says what was
// wrong, for logs (it is not meant for the client).
type Error struct {
	Status int
	Reason string
}

// Error returns "http1: <status> <reason>".
func (e *Error) Error() string {
	return "http1: " + strconv.Itoa(e.Status) + " " + e.Reason
}

// The parser's violations. They are package values so that failing
// allocates nothing; the parser hands out a copy it owns.
var (
	// Request line.
	errLeadingLines   = Error{400, "too many empty lines before the request line"}
	errMethod         = Error{400, "invalid method"}
	errEmptyMethod    = Error{400, "empty method"}
	errRequestLine    = Error{400, "malformed request line"}
	errEmptyTarget    = Error{400, "empty request-target"}
	errTarget         = Error{400, "invalid request-target"}
	errAsterisk       = Error{400, "asterisk-form request-target without OPTIONS"}
	errVersion        = Error{400, "malformed HTTP version"}
	errVersionSupport = Error{505, "unsupported HTTP version"}
	errConnect        = Error{501, "CONNECT is not supported"}
	errTargetTooLong  = Error{414, "request-target too long"}

	// Lines and fields.
	errBareLF        = Error{400, "line not terminated by CRLF"}
	errBareCR        = Error{400, "bare CR"}
	errObsFold       = Error{400, "obsolete line folding"}
	errNoColon       = Error{400, "header line without colon"}
	errEmptyName     = Error{400, "empty header name"}
	errSpaceColon    = Error{400, "whitespace between header name and colon"}
	errFieldName     = Error{400, "invalid header name"}
	errFieldValue    = Error{400, "invalid header value"}
	errHeadTooLarge  = Error{431, "header section too large"}
	errTooManyFields = Error{431, "too many header fields"}

	// Semantics of the head.
	errNoHost       = Error{400, "missing Host"}
	errMultiHost    = Error{400, "more than one Host"}
	errHost         = Error{400, "invalid Host"}
	errCL           = Error{400, "invalid Content-Length"}
	errCLMismatch   = Error{400, "conflicting Content-Length values"}
	errCLAndTE      = Error{400, "both Content-Length and Transfer-Encoding"}
	errTE10         = Error{400, "Transfer-Encoding in an HTTP/1.0 request"}
	errTEEmpty      = Error{400, "empty Transfer-Encoding"}
	errTEUnknown    = Error{501, "unsupported transfer coding"}
	errTENotLast    = Error{501, "chunked is not the last transfer coding"}
	errTETwice      = Error{501, "chunked applied more than once"}
	errBodyTooLarge = Error{413, "body too large"}
	errExpect       = Error{417, "unsupported expectation"}

	// Chunked body.
	errChunkSize       = Error{400, "invalid chunk size"}
	errChunkSizeLong   = Error{400, "chunk size too long"}
	errChunkExt        = Error{400, "invalid chunk extension"}
	errChunkExtLong    = Error{400, "chunk extension too long"}
	errChunkLineEnd    = Error{400, "chunk size line not terminated by CRLF"}
	errChunkDataEnd    = Error{400, "chunk data not followed by CRLF"}
	errTrailerTooLarge = Error{431, "trailer section too large"}
	errTooManyTrailers = Error{431, "too many trailer fields"}
)
