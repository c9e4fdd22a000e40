package gwist

import (
	"errors"

	"github.com/gwist/gwist/engine"
)

// The engine has error values of its own; fromEngine turns them into the
// root package's, documented where users read them (errors.go, body.go,
// sse_feed.go, ws.go), at the edge where an engine call returns to the
// application: a handler's Write, Flush and body Read, a feed's and a
// WebSocket's writes. errors.Is matches the root package's values.
var engineErrors = []struct{ engine, root error }{
	{engine.ErrClientGone, ErrClientGone},
	{engine.ErrInlineStreaming, ErrInlineStreaming},
	{engine.ErrBodyLength, ErrBodyLength},
	{engine.ErrStreamWriteTimeout, ErrStreamWriteTimeout},
	{engine.ErrBodyAborted, ErrBodyAborted},
	{engine.ErrBodyTooLarge, ErrBodyTooLarge},
	{engine.ErrBodyReadTimeout, ErrBodyReadTimeout},
	{engine.ErrBodyFraming, ErrBodyFraming},
	{engine.ErrSlowClient, ErrSlowClient},
	{engine.ErrStreamEnded, ErrFeedClosed},
	{engine.ErrDetach, ErrCannotDetach},
	{engine.ErrWSClosed, ErrWSClosed},
	{engine.ErrOverloaded, ErrServerBusy},
}

// fromEngine returns err with the engine's error values replaced by the
// root package's: the value itself, or a wrapper that keeps err's text and
// chain and also matches the root value (an engine error that wraps
// another, such as ErrBodyFraming around the parser's). nil stays nil.
func fromEngine(err error) error {
	if err == nil {
		return nil
	}
	for _, e := range engineErrors {
		if err == e.engine {
			return e.root
		}
	}
	for _, e := range engineErrors {
		if errors.Is(err, e.engine) {
			return &engineError{err: err, root: e.root}
		}
	}
	return err
}

// engineError is an engine error chain that also matches a root error.
type engineError struct {
	err, root error
}

func (e *engineError) Error() string        { return e.err.Error() }
func (e *engineError) Unwrap() error        { return e.err }
func (e *engineError) Is(target error) bool { return target == e.root }
