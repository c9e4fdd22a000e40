package gwist

import (
	"errors"
)

// JSONErrorHandler answers errors in JSON, for JSON APIs:
// gwist.New(gwist.WithErrorHandler(gwist.JSONErrorHandler)). The body is
// {"error": "message"} with the *HTTPError's code and message (the status
// text when the message is empty); any other error is a 500 with
// "Internal Server Error", logged as DefaultErrorHandler logs it. When the
// error holds FieldErrors (Bind's 400s: a field that could not be parsed,
// or that the Validator refused) the body lists them too:
//
//	{"error": "invalid request: ...", "fields": [{"field": "title", "in": "body", "error": "is required"}]}
//
// Every answer gwist makes itself goes through the error handler, so with
// this one a client gets JSON for a 404, a 405 (Allow set), a 413 or a
// pool's 503 as well. Codes below 400 (the automatic OPTIONS' 204, the
// trailing-slash redirects) and codes without a body are answered without
// one. A response the handler had already set is left as it is.
func JSONErrorHandler(c *Ctx, err error) {
	he := ErrorStatus(c, err)
	if c.responded {
		return
	}
	if he.Code < 400 || !bodyAllowedForStatus(he.Code) {
		_ = c.NoContent(he.Code)
		return
	}
	body := jsonError{Error: he.Text()}
	var fe FieldErrors
	if errors.As(err, &fe) {
		body.Fields = fe
	}
	c.SetHeader("Content-Type", "application/json")
	if c.JSON(he.Code, body) != nil { // a message that is not UTF-8 is replaced, never fails
		_ = c.Bytes(he.Code, "", []byte(`{"error":"Internal Server Error"}`+"\n"))
	}
}

// jsonError is JSONErrorHandler's body.
type jsonError struct {
	Error  string      `json:"error"`
	Fields FieldErrors `json:"fields,omitempty"`
}
