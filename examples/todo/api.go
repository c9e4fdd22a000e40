package main

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gwist/gwist"
	"go.opentelemetry.io/otel/trace"
)

// api holds what the handlers share.
type api struct {
	store *store
	hub   *hub
	// tracer makes the handlers' own spans, children of the request's
	// span (tracing.Middleware, main.go), from the TracerProvider set
	// when the App is built. A package-level otel.Tracer would stay with
	// the first provider ever set: a later App in the same process (tests
	// run with -count=2) would trace into the first one's.
	tracer trace.Tracer
}

// routes registers the REST API under /api.
func (a *api) routes(g *gwist.Group) {
	g.GET("/todos", a.list)
	g.POST("/todos", a.create)
	g.GET("/todos/{id}", a.get)
	g.PATCH("/todos/{id}", a.update)
	g.DELETE("/todos/{id}", a.delete)
	g.GET("/events", a.events)
}

func (a *api) list(c *gwist.Ctx) error { return c.JSON(http.StatusOK, a.store.list()) }

// createRequest is POST /api/todos's body. The App's validator
// (go-playground/validator, main.go) checks the tags; a title that is
// missing, blank or over 200 characters is a 400 naming "title".
type createRequest struct {
	Title string `json:"title" validate:"notblank,max=200"`
}

// strict is how request bodies are decoded: application/json only, and a
// key the request type does not have is a 400 (a typo is not ignored).
var strict = []gwist.BindOption{gwist.BindDisallowUnknownFields()}

func (a *api) create(c *gwist.Ctx) error {
	var req createRequest
	if err := c.BindJSON(&req, strict...); err != nil {
		return err
	}
	_, span := a.tracer.Start(c.Context(), "store.create")
	t := a.store.create(strings.TrimSpace(req.Title))
	span.End()
	a.hub.broadcast(change{Op: "created", Todo: t})
	c.SetHeader("Location", "/api/todos/"+strconv.FormatInt(t.ID, 10))
	return c.JSON(http.StatusCreated, t)
}

// todoPath is the {id} of /api/todos/{id}.
type todoPath struct {
	ID int64 `param:"id" validate:"gt=0"`
}

func (a *api) get(c *gwist.Ctx) error {
	var p todoPath
	if err := c.BindParams(&p); err != nil {
		return err
	}
	t, ok := a.store.get(p.ID)
	if !ok {
		return errNotFound
	}
	return c.JSON(http.StatusOK, t)
}

// updateRequest is PATCH /api/todos/{id}: the id from the path, the fields
// to change from the body (Bind: the path wins over the body).
type updateRequest struct {
	ID    int64   `param:"id" json:"-" validate:"gt=0"`
	Title *string `json:"title" validate:"omitnil,notblank,max=200"`
	Done  *bool   `json:"done"`
}

func (a *api) update(c *gwist.Ctx) error {
	var req updateRequest
	if err := c.Bind(&req, strict...); err != nil {
		return err
	}
	if req.Title == nil && req.Done == nil {
		return gwist.NewHTTPError(http.StatusBadRequest, "nothing to update: send \"title\" and/or \"done\"")
	}
	if req.Title != nil {
		title := strings.TrimSpace(*req.Title)
		req.Title = &title
	}
	t, ok := a.store.update(req.ID, req.Title, req.Done)
	if !ok {
		return errNotFound
	}
	a.hub.broadcast(change{Op: "updated", Todo: t})
	return c.JSON(http.StatusOK, t)
}

func (a *api) delete(c *gwist.Ctx) error {
	var p todoPath
	if err := c.BindParams(&p); err != nil {
		return err
	}
	t, ok := a.store.get(p.ID)
	if !ok || !a.store.delete(p.ID) {
		return errNotFound
	}
	a.hub.broadcast(change{Op: "deleted", Todo: t})
	return c.NoContent(http.StatusNoContent)
}

// events is GET /api/events: a Server-Sent Events feed of changes. The
// handler returns at once; the feed stays open, without a goroutine, until
// the client leaves or the server shuts down, and leaves the hub then.
func (a *api) events(c *gwist.Ctx) error {
	feed, err := c.SSEFeed()
	if err != nil {
		return err
	}
	if err := feed.Comment("connected"); err != nil {
		return nil
	}
	a.hub.feeds.Add(feed)
	return nil
}

var errNotFound = gwist.NewHTTPError(http.StatusNotFound, "no such todo")

// listPage is GET /list: the todos as a page rendered on the server from
// templates/list.html (html/template escapes the titles).
func (a *api) listPage(c *gwist.Ctx) error {
	todos := a.store.list()
	open := 0
	for _, t := range todos {
		if !t.Done {
			open++
		}
	}
	return c.HTML(http.StatusOK, "list.html", map[string]any{"Title": "Todos", "Todos": todos, "Open": open})
}
