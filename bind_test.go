package gwist_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"

	"github.com/gwist/gwist"
)

// todoInput takes a value from every part of a request.
type todoInput struct {
	ID    int64          `param:"id" json:"id"`
	Title string         `json:"title" form:"title" validate:"required,max=20"`
	Page  int            `query:"page" form:"page" json:"-"`
	Tags  []string       `query:"tag" json:"-"`
	Token string         `header:"X-Token" json:"-"`
	Wait  time.Duration  `query:"wait" json:"-"`
	Since *time.Time     `query:"since" json:"-"`
	Small uint8          `query:"small" json:"-"`
	Done  *bool          `json:"done" form:"done"`
	Extra map[string]any `json:"-"`
}

// bindApp echoes what Bind filled, as JSON; errors are JSON too, and the
// App validates with go-playground/validator.
func bindApp(t *testing.T) string {
	validate := validator.New(validator.WithRequiredStructEnabled())
	app := gwist.New(gwist.WithErrorHandler(gwist.JSONErrorHandler), gwist.WithLogger(discardLogger()),
		gwist.WithValidator(gwist.ValidatorFunc(validate.Struct)))
	echo := func(c *gwist.Ctx) error {
		in := todoInput{Page: 1} // a default Bind keeps when no source has the field
		if err := c.Bind(&in); err != nil {
			return err
		}
		return c.JSON(200, echoed(in))
	}
	app.PUT("/todos/:id", echo)
	app.POST("/todos/:id", echo)
	app.GET("/todos/:id", func(c *gwist.Ctx) error {
		// Each single-source Bind validates what it filled: one struct each.
		var path struct {
			ID int64 `param:"id"`
		}
		var head struct {
			Token string `header:"x-token"`
		}
		var query struct {
			Page int `query:"page" validate:"min=1"`
		}
		if err := c.BindParams(&path); err != nil {
			return err
		}
		if err := c.BindHeader(&head); err != nil {
			return err
		}
		if err := c.BindQuery(&query); err != nil {
			return err
		}
		return c.JSON(200, map[string]any{"ID": path.ID, "Token": head.Token, "Page": query.Page})
	})
	app.POST("/json", func(c *gwist.Ctx) error {
		var in struct {
			Title string `json:"title" validate:"required"`
		}
		if err := c.BindJSON(&in); err != nil {
			return err
		}
		return c.JSON(200, in)
	})
	return "http://" + startApp(t, app)
}

// echoed is a todoInput with every field in its JSON.
type echoed todoInput

func (e echoed) MarshalJSON() ([]byte, error) {
	type all struct {
		ID    int64
		Title string
		Page  int
		Tags  []string
		Token string
		Wait  time.Duration
		Since *time.Time
		Small uint8
		Done  *bool
	}
	return json.Marshal(all{e.ID, e.Title, e.Page, e.Tags, e.Token, e.Wait, e.Since, e.Small, e.Done})
}

type problem struct {
	Error  string             `json:"error"`
	Fields []gwist.FieldError `json:"fields"`
}

func send(t *testing.T, method, url, ctype, body string, header ...string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// What wins when a field comes from two places: the path over the body,
// the body over the query, the query over a default.
func TestBindPrecedence(t *testing.T) {
	base := bindApp(t)
	since := "2026-12-05T10:00:00Z"
	code, b := send(t, "PUT", base+"/todos/5?page=2&tag=a&tag=b&wait=1m30s&small=7&since="+since, "application/json",
		`{"id": 6, "title": "from the body", "done": true}`, "X-Token", "secret")
	var got struct {
		ID    int64
		Title string
		Page  int
		Tags  []string
		Token string
		Wait  time.Duration
		Since *time.Time
		Small uint8
		Done  *bool
	}
	if code != 200 || json.Unmarshal(b, &got) != nil {
		t.Fatalf("%d %s", code, b)
	}
	if got.ID != 5 || got.Title != "from the body" || got.Page != 2 || strings.Join(got.Tags, ",") != "a,b" ||
		got.Token != "secret" || got.Wait != 90*time.Second || got.Small != 7 || got.Since == nil ||
		got.Since.Format(time.RFC3339) != since || got.Done == nil || !*got.Done {
		t.Fatalf("bound %+v", got)
	}
	// A form body's value wins over the query's; the path still wins.
	form := url.Values{"title": {"from the form"}, "page": {"9"}, "done": {"false"}}
	code, b = send(t, "POST", base+"/todos/7?page=2", "application/x-www-form-urlencoded", form.Encode())
	got.Done = nil
	if code != 200 || json.Unmarshal(b, &got) != nil || got.ID != 7 || got.Page != 9 || got.Title != "from the form" ||
		got.Done == nil || *got.Done {
		t.Fatalf("form: %d %s", code, b)
	}
	// No body, no query: the default stays; the title is required (named
	// by its form tag: the request has no JSON body).
	code, b = send(t, "POST", base+"/todos/7", "", "")
	var p problem
	if code != 400 || json.Unmarshal(b, &p) != nil || len(p.Fields) != 1 ||
		p.Fields[0] != (gwist.FieldError{Field: "title", In: "form", Message: "failed required"}) {
		t.Fatalf("no body: %d %s", code, b)
	}
}

// Values that do not parse are 400s naming every field and where it came
// from; the validator's refusals name the field as the client sent it.
func TestBindErrorsNameTheFields(t *testing.T) {
	base := bindApp(t)
	code, b := send(t, "PUT", base+"/todos/x?page=abc&small=300&wait=soon", "application/json", `{"title":"t"}`)
	var p problem
	if code != 400 || json.Unmarshal(b, &p) != nil {
		t.Fatalf("%d %s", code, b)
	}
	want := []gwist.FieldError{
		{Field: "page", In: "query", Message: `"abc" is not an integer`},
		{Field: "wait", In: "query", Message: `"soon" is not a duration (such as 1m30s)`},
		{Field: "small", In: "query", Message: `"300" is out of range for uint8`},
		{Field: "id", In: "path", Message: `"x" is not an integer`},
	}
	if len(p.Fields) != len(want) || !strings.HasPrefix(p.Error, "invalid request: query page: ") {
		t.Fatalf("got %s", b)
	}
	for i := range want {
		if p.Fields[i] != want[i] {
			t.Errorf("field %d: %+v, want %+v", i, p.Fields[i], want[i])
		}
	}
	code, b = send(t, "PUT", base+"/todos/1", "application/json", `{"title":"`+strings.Repeat("x", 21)+`"}`)
	p = problem{}
	if code != 400 || json.Unmarshal(b, &p) != nil || len(p.Fields) != 1 ||
		p.Fields[0] != (gwist.FieldError{Field: "title", In: "body", Message: "failed max=20"}) {
		t.Fatalf("max: %d %s", code, b)
	}
	// BindJSON validates too.
	code, b = send(t, "POST", base+"/json", "application/json", `{}`)
	p = problem{}
	if code != 400 || json.Unmarshal(b, &p) != nil || len(p.Fields) != 1 || p.Fields[0].Field != "title" {
		t.Fatalf("BindJSON: %d %s", code, b)
	}
	// The single-source binders, and their validation.
	code, b = send(t, "GET", base+"/todos/3?page=4", "", "", "X-TOKEN", "t")
	if code != 200 || string(b) != `{"ID":3,"Page":4,"Token":"t"}`+"\n" {
		t.Fatalf("BindParams/Header/Query: %d %s", code, b)
	}
	code, b = send(t, "GET", base+"/todos/3?page=0", "", "")
	p = problem{}
	if code != 400 || json.Unmarshal(b, &p) != nil || len(p.Fields) != 1 || p.Fields[0].Field != "page" || p.Fields[0].In != "query" {
		t.Fatalf("BindQuery validation: %d %s", code, b)
	}
	// A body Bind cannot read.
	if code, b := send(t, "PUT", base+"/todos/1", "text/plain", "title=x"); code != 415 {
		t.Fatalf("text/plain: %d %s", code, b)
	}
}

// A tagged field Bind cannot fill is the handler's bug: a 500 (logged),
// never a 400 that blames the client.
func TestBindUnsupportedField(t *testing.T) {
	app := gwist.New(gwist.WithErrorHandler(gwist.JSONErrorHandler), gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error {
		var in struct {
			M map[string]int `query:"m"`
		}
		return c.BindQuery(&in)
	})
	code, b := send(t, "GET", "http://"+startApp(t, app)+"/?m=1", "", "")
	if code != 500 || !strings.Contains(string(b), "Internal Server Error") {
		t.Fatalf("%d %s", code, b)
	}
}
