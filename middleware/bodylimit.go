package middleware

import (
	"net/http"

	"github.com/gwist/gwist"
)

// BodyLimit answers 413 (through the error handler, before the handler
// runs) to a request whose body, or declared Content-Length, is over n
// bytes. Use it on routes that take less than the App's limit
// (gwist.WithMaxBodyBytes, 8 MiB by default): that limit is enforced while
// reading, before routing (a Content-Length over it gets 413 before the
// body is read), and bounds the memory a body can take; BodyLimit is
// checked after the body was read, so it narrows what a route accepts but
// cannot save the reading of up to the App's limit. On a route whose body
// streams (Group.StreamBody) the body has not been read when it runs: only
// a declared Content-Length is checked, and StreamBody's own limit is the
// one that bounds the body.
func BodyLimit(n int64) gwist.Middleware {
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			if int64(len(c.UnsafeBody())) > n || c.UnsafeRequest().ContentLength > n {
				return gwist.NewHTTPError(http.StatusRequestEntityTooLarge, "")
			}
			return next(c)
		}
	}
}
