package middleware

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/http1"
)

// CORSConfig configures CORS. The zero value allows no origin.
type CORSConfig struct {
	// AllowOrigins lists the origins allowed, exactly as browsers send them
	// ("https://app.example", "http://localhost:3000"); "*" allows any.
	AllowOrigins []string
	// AllowOriginFunc, when set, is asked about origins not in AllowOrigins.
	AllowOriginFunc func(origin string) bool
	// AllowMethods answers preflights (default GET, HEAD, POST, PUT, PATCH,
	// DELETE).
	AllowMethods []string
	// AllowHeaders answers preflights; when empty, the headers the
	// preflight asks for are allowed.
	AllowHeaders []string
	// ExposeHeaders lists response headers scripts may read.
	ExposeHeaders []string
	// AllowCredentials lets the browser send cookies and read the answer.
	// The allowed origin is then echoed, never "*" (the Fetch standard
	// forbids "*" with credentials).
	AllowCredentials bool
	// MaxAge lets browsers cache a preflight's answer (0: not sent).
	MaxAge time.Duration
}

// CORS answers cross-origin requests from allowed origins: a preflight
// (OPTIONS with Access-Control-Request-Method) gets 204 with the
// Access-Control-Allow-* headers without reaching the routes; other
// requests go on with Access-Control-Allow-Origin (and -Credentials,
// -Expose-Headers) set. Responses that depend on the origin carry
// "Vary: Origin". A request from an origin not allowed goes on without
// CORS headers (a preflight gets 204 without them), so the browser blocks
// the answer. Use it with App.Use: it must see the preflight before
// routing (the router would answer OPTIONS itself).
func CORS(cfg CORSConfig) gwist.Middleware {
	anyOrigin := slices.Contains(cfg.AllowOrigins, "*")
	methods := cfg.AllowMethods
	if len(methods) == 0 {
		methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"}
	}
	allowMethods := strings.Join(methods, ", ")
	allowHeaders := strings.Join(cfg.AllowHeaders, ", ")
	expose := strings.Join(cfg.ExposeHeaders, ", ")
	maxAge := ""
	if cfg.MaxAge > 0 {
		maxAge = strconv.Itoa(int(cfg.MaxAge / time.Second))
	}
	for _, v := range []string{allowMethods, allowHeaders, expose} {
		if !http1.ValidHeaderValue(v) {
			panic("middleware: CORS: invalid header value " + strconv.Quote(v))
		}
	}
	// "*" without credentials does not depend on the origin.
	echoOrigin := !anyOrigin || cfg.AllowCredentials
	// allowed returns the origin to echo (the configured string when
	// listed, so that nothing is copied) and whether it is allowed.
	allowed := func(origin string) (string, bool) {
		if i := slices.Index(cfg.AllowOrigins, origin); i >= 0 {
			return cfg.AllowOrigins[i], true
		}
		if anyOrigin || (cfg.AllowOriginFunc != nil && cfg.AllowOriginFunc(origin)) {
			return strings.Clone(origin), true
		}
		return "", false
	}
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			origin := c.UnsafeHeader("Origin")
			preflight := c.UnsafeRequest().Method == http.MethodOptions &&
				c.UnsafeHeader("Access-Control-Request-Method") != ""
			if echoOrigin {
				c.AddHeader("Vary", "Origin")
			}
			if origin == "" {
				return next(c)
			}
			origin, ok := allowed(origin)
			if !ok {
				if preflight {
					return c.NoContent(http.StatusNoContent)
				}
				return next(c)
			}
			if echoOrigin {
				c.SetHeader("Access-Control-Allow-Origin", origin)
			} else {
				c.SetHeader("Access-Control-Allow-Origin", "*")
			}
			if cfg.AllowCredentials {
				c.SetHeader("Access-Control-Allow-Credentials", "true")
			}
			if !preflight {
				if expose != "" {
					c.SetHeader("Access-Control-Expose-Headers", expose)
				}
				return next(c)
			}
			c.AddHeader("Vary", "Access-Control-Request-Method")
			c.AddHeader("Vary", "Access-Control-Request-Headers")
			c.SetHeader("Access-Control-Allow-Methods", allowMethods)
			if allowHeaders != "" {
				c.SetHeader("Access-Control-Allow-Headers", allowHeaders)
			} else if h := c.UnsafeHeader("Access-Control-Request-Headers"); h != "" {
				c.SetHeader("Access-Control-Allow-Headers", strings.Clone(h))
			}
			if maxAge != "" {
				c.SetHeader("Access-Control-Max-Age", maxAge)
			}
			return c.NoContent(http.StatusNoContent)
		}
	}
}
