// Command todo is a small todo-list service written the gwist way, the
// place to start reading gwist code:
//
//	go run ./examples/todo [-addr 127.0.0.1:8081] [-origin http://localhost:3000]
//
// then open http://127.0.0.1:8081/. It has
//
//   - a REST API under /api: GET and POST /api/todos, GET, PATCH and DELETE
//     /api/todos/{id}; JSON bodies decoded strictly (application/json only,
//     unknown fields refused) and validated, errors answered as
//     {"error": "..."} with a 400, 404, 413 or 415;
//   - GET /api/events, a Server-Sent Events feed of the changes, run as
//     gwist.SSEFeed, and GET /ws, the same changes over a WebSocket (the
//     page uses it: every open page updates itself); an open feed or
//     socket holds no goroutine, a small hub broadcasts to all of them;
//   - the middleware set: request ID, access log, recover, CORS (for a
//     front-end dev server on -origin) and gzip;
//   - a static front-end (web/index.html and web/app.js, no framework)
//     embedded in the binary;
//   - graceful shutdown on SIGINT or SIGTERM: no new connections, open
//     feeds ended (browsers reconnect elsewhere), requests in flight
//     finished;
//   - tests with net/http/httptest (the App is an http.Handler) and one
//     over a real socket for the event feed (main_test.go).
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

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

//go:embed web
var web embed.FS

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "listen address")
	origin := flag.String("origin", "http://localhost:3000", "origin allowed by CORS (a front-end dev server)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
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
	app := gwist.New(gwist.WithLogger(logger), gwist.WithErrorHandler(errorHandler),
		gwist.WithMaxBodyBytes(64<<10))
	app.Use(
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
	(&api{store: newStore(), hub: h}).routes(app.Group("/api"))
	app.GET("/ws", gwist.WebSocket(h.wsHandler()))

	site, err := fs.Sub(web, "web")
	if err != nil {
		panic(err)
	}
	app.GET("/", func(c *gwist.Ctx) error { return c.FileFS(site, "index.html") })
	app.StaticFS("/static", site)
	return app, h
}
