//go:build unix

package engine

import (
	"context"
	"fmt"
	"log/slog"
)

// gnetLogger routes gnet's own logging to slog, one level down so that
// gnet's start-up chatter stays out of an application's info log.
type gnetLogger struct{ l *slog.Logger }

func (g gnetLogger) Debugf(format string, args ...any) { g.log(slog.LevelDebug-4, format, args) }
func (g gnetLogger) Infof(format string, args ...any)  { g.log(slog.LevelDebug, format, args) }
func (g gnetLogger) Warnf(format string, args ...any)  { g.log(slog.LevelWarn, format, args) }
func (g gnetLogger) Errorf(format string, args ...any) { g.log(slog.LevelError, format, args) }
func (g gnetLogger) Fatalf(format string, args ...any) { g.log(slog.LevelError, format, args) }

func (g gnetLogger) log(level slog.Level, format string, args []any) {
	if g.l.Enabled(context.Background(), level) {
		g.l.Log(context.Background(), level, "gnet: "+fmt.Sprintf(format, args...))
	}
}
