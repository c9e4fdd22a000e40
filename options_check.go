package gwist

import (
	"errors"
	"fmt"
	"time"
)

// ErrInvalidOption is wrapped by the error Start (and Listen, StartTLS,
// ServeTLS, ListenTLS) returns when an Option passed to New was given a
// value it cannot take: a negative size or count, or a timeout of zero or
// less where gwist has no "no timeout". The message names the option and
// the value, e.g. "gwist: invalid option WithWorkers(-5): must not be
// negative (0 means the default, 1024)". Under ServeHTTP such an App
// answers every request with 500 and that message.
var ErrInvalidOption = errors.New("gwist: invalid option")

// optionError records that option was given value, which it refuses for
// the reason why; New keeps the first errors and Start returns them.
func (c *config) optionError(option string, value any, why string) {
	c.errs = append(c.errs, fmt.Errorf("%w %s(%v): %s", ErrInvalidOption, option, value, why))
}

// count checks a size or count whose zero means the default.
func (c *config) count(option string, n int64, def string) bool {
	if n < 0 {
		c.optionError(option, n, "must not be negative (0 means the default, "+def+")")
		return false
	}
	return true
}

// timeout checks a duration that must be positive: zero does not mean
// "no timeout" (gwist has none), and a negative one means nothing.
func (c *config) timeout(option string, d time.Duration, def string) bool {
	if d <= 0 {
		c.optionError(option, d, "must be positive (the default is "+def+"; there is no \"no timeout\")")
		return false
	}
	return true
}

// optionsErr is what the options passed to New refused, nil when none.
func (a *App) optionsErr() error { return errors.Join(a.cfg.errs...) }
