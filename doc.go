// Package gwist is a web framework on an epoll event loop (gnet).
//
// Requests are parsed on the event loop, routed through a radix router and
// handled on a bounded worker pool (or inline on the loop with WithInline).
// Handlers are plain functions of a *Ctx that return an error; middleware is
// a plain function that wraps a handler.
//
//	app := gwist.New()
//	app.GET("/users/:id", func(c *gwist.Ctx) error {
//		return c.JSON(200, map[string]string{"id": c.Param("id")})
//	})
//	log.Fatal(app.Listen("127.0.0.1:8080"))
//
// Everything a handler gets from a Ctx (strings included) is valid only until
// the handler returns; copy what must outlive it.
package gwist
