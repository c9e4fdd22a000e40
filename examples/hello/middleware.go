package main

import (
	"log/slog"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// corsOrigin is the front-end origin -middleware allows (a dev server).
const corsOrigin = "http://localhost:3000"

// useMiddleware wraps every route (and the router's own answers) in the
// request-ID, access-log, recover, gzip and CORS middleware, in that order
// (outermost first); access log lines go to logger.
func useMiddleware(app *gwist.App, logger *slog.Logger) {
	app.Use(
		middleware.RequestID(),
		middleware.AccessLog(logger),
		middleware.Recover(),
		middleware.Gzip(middleware.GzipConfig{}),
		middleware.CORS(middleware.CORSConfig{AllowOrigins: []string{corsOrigin}}),
	)
}
