package gwist

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Cookies returns the request's cookies, from every Cookie header, in
// order. Malformed pairs are skipped, as net/http does. The cookies are
// the handler's to keep: nothing in them points into the request's
// buffers.
func (c *Ctx) Cookies() []*http.Cookie {
	var lines []string
	for _, f := range c.ex.Request.Headers {
		if len(f.Name) == len("Cookie") && strings.EqualFold(f.Name, "Cookie") {
			lines = append(lines, strings.Clone(f.Value))
		}
	}
	if lines == nil {
		return nil
	}
	r := http.Request{Header: http.Header{"Cookie": lines}}
	return r.Cookies()
}

// Cookie returns the request cookie named name (the first, when several
// have it), or http.ErrNoCookie.
func (c *Ctx) Cookie(name string) (*http.Cookie, error) {
	for _, ck := range c.Cookies() {
		if ck.Name == name {
			return ck, nil
		}
	}
	return nil, http.ErrNoCookie
}

// SetCookie adds a Set-Cookie header for ck, with every attribute it sets
// (Path, Domain, Expires, Max-Age, Secure, HttpOnly, SameSite,
// Partitioned). A cookie that http.Cookie.Valid refuses (a name that is
// not a token, a value or attribute with invalid bytes, Partitioned
// without Secure) is not sent: like an invalid SetHeader, the response
// becomes a 500 and the error is logged.
func (c *Ctx) SetCookie(ck *http.Cookie) *Ctx {
	if err := ck.Valid(); err != nil {
		if c.headerErr == nil {
			c.headerErr = fmt.Errorf("gwist: cookie %q: %w", ck.Name, err)
		}
		return c
	}
	return c.AddHeader("Set-Cookie", ck.String())
}

// DeleteCookie tells the client to drop the cookie named name with the
// given Path and Domain ("" for none: they must match the ones it was set
// with): a Set-Cookie with an empty value, Max-Age=0 and an Expires in
// the past.
func (c *Ctx) DeleteCookie(name, path, domain string) *Ctx {
	return c.SetCookie(&http.Cookie{Name: name, Path: path, Domain: domain, MaxAge: -1, Expires: time.Unix(0, 0)})
}
