package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gwist/gwist"
)

// maxTitle bounds a todo's title, in characters.
const maxTitle = 200

// api holds what the handlers share.
type api struct {
	store *store
	hub   *hub
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

// createRequest is POST /api/todos's body.
type createRequest struct {
	Title string `json:"title"`
}

// strict is how request bodies are decoded: application/json only, and a
// key the request type does not have is a 400 (a typo is not ignored).
var strict = []gwist.BindOption{gwist.BindDisallowUnknownFields()}

func (a *api) create(c *gwist.Ctx) error {
	var req createRequest
	if err := c.BindJSON(&req, strict...); err != nil {
		return err
	}
	title, err := validTitle(req.Title)
	if err != nil {
		return err
	}
	t := a.store.create(title)
	a.hub.broadcast(change{Op: "created", Todo: t})
	c.SetHeader("Location", "/api/todos/"+strconv.FormatInt(t.ID, 10))
	return c.JSON(http.StatusCreated, t)
}

func (a *api) get(c *gwist.Ctx) error {
	id, err := todoID(c)
	if err != nil {
		return err
	}
	t, ok := a.store.get(id)
	if !ok {
		return errNotFound
	}
	return c.JSON(http.StatusOK, t)
}

// updateRequest is PATCH /api/todos/{id}'s body: the fields to change.
type updateRequest struct {
	Title *string `json:"title"`
	Done  *bool   `json:"done"`
}

func (a *api) update(c *gwist.Ctx) error {
	id, err := todoID(c)
	if err != nil {
		return err
	}
	var req updateRequest
	if err := c.BindJSON(&req, strict...); err != nil {
		return err
	}
	if req.Title == nil && req.Done == nil {
		return badRequest("nothing to update: send \"title\" and/or \"done\"")
	}
	if req.Title != nil {
		title, err := validTitle(*req.Title)
		if err != nil {
			return err
		}
		req.Title = &title
	}
	t, ok := a.store.update(id, req.Title, req.Done)
	if !ok {
		return errNotFound
	}
	a.hub.broadcast(change{Op: "updated", Todo: t})
	return c.JSON(http.StatusOK, t)
}

func (a *api) delete(c *gwist.Ctx) error {
	id, err := todoID(c)
	if err != nil {
		return err
	}
	t, ok := a.store.get(id)
	if !ok || !a.store.delete(id) {
		return errNotFound
	}
	a.hub.broadcast(change{Op: "deleted", Todo: t})
	return c.NoContent(http.StatusNoContent)
}

// events is GET /api/events: a Server-Sent Events feed of changes. The
// handler returns at once; the feed stays open, without a goroutine, until
// the client leaves or the server shuts down.
func (a *api) events(c *gwist.Ctx) error {
	feed, err := c.SSEFeed()
	if errors.Is(err, gwist.ErrFeedNeedsLoop) {
		// Under App.ServeHTTP (httptest): a feed needs gwist's listener.
		return gwist.NewHTTPError(http.StatusNotImplemented, "the event feed needs gwist's own listener")
	}
	if err != nil {
		return err
	}
	if err := feed.Comment("connected"); err != nil {
		return nil
	}
	a.hub.add(feed)
	return nil
}

var errNotFound = gwist.NewHTTPError(http.StatusNotFound, "no such todo")

func badRequest(msg string) error { return gwist.NewHTTPError(http.StatusBadRequest, msg) }

// todoID parses the {id} route parameter.
func todoID(c *gwist.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, badRequest("id must be a positive integer")
	}
	return id, nil
}

// validTitle trims a title and checks it.
func validTitle(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", badRequest("title is required")
	case !utf8.ValidString(s):
		return "", badRequest("title must be UTF-8")
	case utf8.RuneCountInString(s) > maxTitle:
		return "", badRequest("title is longer than " + strconv.Itoa(maxTitle) + " characters")
	}
	return s, nil
}

// errorHandler answers errors as JSON ({"error": "..."}) with their
// status. Anything that is not an *HTTPError is a 500 whose details are
// logged, not sent. A response already set is left as it is.
func errorHandler(c *gwist.Ctx, err error) {
	var he *gwist.HTTPError
	if !errors.As(err, &he) {
		if c.Context().Err() == nil { // not just a client that left
			c.Logger().LogAttrs(context.Background(), slog.LevelError, "todo: handler error",
				append(c.LogAttrs(), slog.Any("error", err))...)
		}
		he = gwist.NewHTTPError(http.StatusInternalServerError, "")
	}
	if c.Responded() {
		return
	}
	msg := he.Message
	if msg == "" {
		msg = http.StatusText(he.Code)
	}
	_ = c.JSON(he.Code, map[string]string{"error": msg})
}
