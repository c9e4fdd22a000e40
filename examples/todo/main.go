// Command todo is a small todo-list service written the gwist way, the
// place to start reading gwist code:
//
//	go run ./examples/todo [-addr 127.0.0.1:8081] [-origin http://localhost:3000] [-trace=false]
//
// then open http://127.0.0.1:8081/. It has
//
//   - a REST API under /api: GET and POST /api/todos, GET, PATCH and DELETE
//     /api/todos/{id}; bodies and path parameters bound with Bind and
//     checked by go-playground/validator's tags (WithValidator), JSON
//     decoded strictly (application/json only, unknown fields refused);
//   - JSON errors everywhere ({"error": "...", "fields": [...]}), the
//     router's 404 and 405 and the 413 of a body over the limit included:
//     one option, WithErrorHandler(gwist.JSONErrorHandler);
//   - GET /api/events, a Server-Sent Events feed of the changes, run as
//     gwist.SSEFeed in a gwist.SSEHub, and GET /ws, the same changes over
//     a WebSocket in a gwist.WSHub (the page uses it: every open page
//     updates itself); an open feed or socket holds no goroutine;
//   - GET /list, a page rendered on the server from an html/template
//     (WithTemplates, Ctx.HTML);
//   - a trace of every request (tracing.Middleware, OpenTelemetry): one
//     log line per span, the request's named by its route, with the
//     handler's own span inside it (trace.go);
//   - the middleware set: request ID, access log, recover, CORS (for a
//     front-end dev server on -origin) and gzip;
//   - a static front-end (web/index.html and web/app.js, no framework)
//     embedded in the binary;
//   - graceful shutdown on SIGINT or SIGTERM: no new connections, open
//     feeds ended (browsers reconnect elsewhere), requests in flight
//     finished;
//   - tests with net/http/httptest (the App is an http.Handler: the event
//     feed and the WebSocket work there too), the websocket/wsclient
//     client, and the OpenTelemetry SDK's in-memory exporter.
//
// The todos live in memory.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/go-playground/validator/v10/non-standard/validators"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
	"github.com/gwist/gwist/tracing"
)

//go:embed web
var web embed.FS

//go:embed templates
var templates embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	origin := flag.String("origin", "http://localhost:3000", "origin allowed by CORS (a front-end dev server)")
	trace := flag.Bool("trace", true, "log a line per trace span (OpenTelemetry)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *trace {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(logExporter{logger}))
		defer tp.Shutdown(context.Background())
		otel.SetTracerProvider(tp) // tracing.Middleware and the handlers' tracer use it
	}
	app, _ := newApp(logger, *origin)
	// Catch the signals before saying "listening": a SIGTERM sent as soon
	// as that line is read must drain, not kill.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	bound, err := app.Start(*addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("todo: listening on http://%s\n", bound)
	<-stop
	logger.Info("todo: shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		logger.Error("todo: shutdown", slog.Any("error", err))
		os.Exit(1)
	}
}

// newApp builds the service: middleware, API, event hub and front-end.
func newApp(logger *slog.Logger, origin string) (*gwist.App, *hub) {
	app := gwist.New(gwist.WithLogger(logger),
		gwist.WithErrorHandler(gwist.JSONErrorHandler), // every error, the router's too, as JSON
		gwist.WithValidator(newValidator()),
		gwist.WithTemplates(templates, "templates/*.html"),
		gwist.WithMaxBodyBytes(64<<10))
	app.Use(
		tracing.Middleware(), // first: its span covers the rest (off until a TracerProvider is set)
		middleware.RequestID(),
		middleware.AccessLog(nil), // the App's logger
		middleware.Recover(),
		middleware.CORS(middleware.CORSConfig{
			AllowOrigins:  []string{origin},
			AllowHeaders:  []string{"Content-Type"},
			ExposeHeaders: []string{"Location", "X-Request-ID"},
			MaxAge:        10 * time.Minute,
		}),
		middleware.Gzip(middleware.GzipConfig{}),
	)
	h := newHub()
	a := &api{store: newStore(), hub: h, tracer: otel.Tracer("todo")}
	a.routes(app.Group("/api"))
	app.GET("/list", a.listPage)
	app.GET("/ws", gwist.WebSocket(h.wsHandler()))

	site, err := fs.Sub(web, "web")
	if err != nil {
		panic(err)
	}
	app.GET("/", func(c *gwist.Ctx) error { return c.FileFS(site, "index.html") })
	app.StaticFS("/static", site)
	return app, h
}

// newValidator is go-playground/validator with the rule the API uses
// beyond its standard set (notblank: not empty once trimmed).
func newValidator() gwist.Validator {
	v := validator.New(validator.WithRequiredStructEnabled())
	if err := v.RegisterValidation("notblank", validators.NotBlank); err != nil {
		panic(err)
	}
	return gwist.ValidatorFunc(v.Struct)
}
