package middleware

import (
	"strconv"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/http1"
)

// SecureHeadersConfig configures SecureHeaders. An empty field takes its
// default; "-" leaves that header out.
type SecureHeadersConfig struct {
	// ContentTypeOptions, default "nosniff".
	ContentTypeOptions string
	// FrameOptions (X-Frame-Options), default "DENY".
	FrameOptions string
	// ReferrerPolicy, default "strict-origin-when-cross-origin".
	ReferrerPolicy string
	// CrossOriginOpenerPolicy, default "same-origin".
	CrossOriginOpenerPolicy string
	// ContentSecurityPolicy, default none (a policy is the app's to write).
	ContentSecurityPolicy string
	// HSTSMaxAge sends Strict-Transport-Security with this max-age when > 0
	// (default 0: not sent; a browser then insists on HTTPS for the host,
	// localhost included, so turn it on deliberately).
	HSTSMaxAge time.Duration
	// HSTSIncludeSubdomains adds includeSubDomains to it.
	HSTSIncludeSubdomains bool
}

// SecureHeaders sets the usual protective response headers on every
// response, before the handler runs (so error answers carry them too; a
// handler may override one with SetHeader): X-Content-Type-Options,
// X-Frame-Options, Referrer-Policy, Cross-Origin-Opener-Policy, and when
// configured Content-Security-Policy and Strict-Transport-Security. An
// invalid value panics here, at setup.
func SecureHeaders(cfg SecureHeadersConfig) gwist.Middleware {
	var fields []http1.HeaderField
	add := func(name, value, def string) {
		if value == "" {
			value = def
		}
		if value == "" || value == "-" {
			return
		}
		if !http1.ValidHeaderValue(value) {
			panic("middleware: SecureHeaders: invalid " + name + " " + strconv.Quote(value))
		}
		fields = append(fields, http1.HeaderField{Name: name, Value: value})
	}
	add("X-Content-Type-Options", cfg.ContentTypeOptions, "nosniff")
	add("X-Frame-Options", cfg.FrameOptions, "DENY")
	add("Referrer-Policy", cfg.ReferrerPolicy, "strict-origin-when-cross-origin")
	add("Cross-Origin-Opener-Policy", cfg.CrossOriginOpenerPolicy, "same-origin")
	add("Content-Security-Policy", cfg.ContentSecurityPolicy, "")
	if cfg.HSTSMaxAge > 0 {
		v := "max-age=" + strconv.FormatInt(int64(cfg.HSTSMaxAge/time.Second), 10)
		if cfg.HSTSIncludeSubdomains {
			v += "; includeSubDomains"
		}
		add("Strict-Transport-Security", v, "")
	}
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			for _, f := range fields {
				c.SetHeader(f.Name, f.Value)
			}
			return next(c)
		}
	}
}
