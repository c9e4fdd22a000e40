package gwist

// The documentation checked against the code, so that it cannot drift:
// docs/options.md against the option constructors and their defaults, the
// Go names the guides mention against the packages, and every relative
// link (and #anchor) in the Markdown files against the tree.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/tlsstate"
)

// optionPackages are the packages whose option constructors
// docs/options.md documents: every exported function of one of them that
// returns one of its exported func types named ...Option must have a row,
// under its qualified name outside the root package.
var optionPackages = []struct{ dir, qual string }{
	{".", ""},
	{"metrics", "metrics."},
	{"tracing", "tracing."},
}

// optionDefaults are the numeric defaults docs/options.md must state: the
// quantities of a row's default cell, in order, against the constants the
// code uses (a row may say more; the first ones must match).
func optionDefaults() map[string][]int64 {
	d := func(v time.Duration) int64 { return int64(v) }
	return map[string][]int64{
		"WithWorkers":             {engine.DefaultWorkers},
		"WithMaxTargetBytes":      {http1.DefaultMaxTargetBytes},
		"WithMaxHeaderBytes":      {http1.DefaultMaxHeaderBytes},
		"WithMaxHeaderCount":      {http1.DefaultMaxHeaderCount},
		"WithMaxBodyBytes":        {http1.DefaultMaxBodyBytes},
		"WithMaxBodyBuffered":     {engine.DefaultMaxBodyBuffered},
		"WithHeaderReadTimeout":   {d(engine.DefaultHeaderReadTimeout)},
		"WithBodyReadTimeout":     {d(engine.DefaultBodyReadTimeout)},
		"WithIdleTimeout":         {d(engine.DefaultIdleTimeout)},
		"WithMaxPipelined":        {engine.DefaultMaxPipelined},
		"WithMaxInboundBytes":     {engine.DefaultMaxInboundBytes, engine.DefaultMaxInboundBytesNoPause},
		"WithWriteTimeout":        {d(engine.DefaultWriteTimeout)},
		"WithStreamThreshold":     {engine.DefaultStreamThreshold},
		"WithMaxStreamQueued":     {engine.DefaultMaxStreamQueued},
		"WithMaxInlineFileBytes":  {defaultMaxInlineFileBytes},
		"WithSSEHeartbeat":        {d(DefaultSSEHeartbeat)},
		"WithDrainDelay":          {0},
		"WithTLSHandshakeTimeout": {d(tlsstate.DefaultHandshakeTimeout)},
		"WithMaxHandshakes":       {tlsstate.HandshakesPerCPU},
		"WithMaxParkedHandshakes": {tlsstate.ParkedPerHandshake},
		"WithMaxSlowCertLookups":  {tlsstate.SlowLookupsPerHandshake, d(tlsstate.DefaultSlowLookup)},
	}
}

// wsConfigDefaults are WSConfig's defaults, as the engine applies them.
func wsConfigDefaults() map[string][]int64 {
	w := WSConfig{}.withDefaults()
	return map[string][]int64{
		"MaxMessage":        {w.MaxMessage},
		"MaxQueued":         {int64(w.MaxQueued)},
		"MaxReadQueue":      {int64(w.MaxReadQueue)},
		"MaxReadQueueBytes": {int64(w.MaxReadQueueBytes)},
		"PingInterval":      {int64(w.PingInterval)},
		"PongTimeout":       {int64(w.PongTimeout)},
		"IdleTimeout":       {int64(w.IdleTimeout)},
		"CloseTimeout":      {int64(w.CloseTimeout)},
	}
}

// http2LimitsDefaults are HTTP2Limits' defaults, the http2 package's.
func http2LimitsDefaults() map[string][]int64 {
	return map[string][]int64{
		"MaxConcurrentStreams": {http2.DefaultMaxConcurrentStreams},
		"StreamWindow":         {http2.DefaultStreamWindow},
		"ConnWindow":           {http2.DefaultConnWindow},
		"MaxFrameSize":         {http2.DefaultMaxFrameSize},
		"MaxHeaderListSize":    {http2.DefaultMaxHeaderListSize},
		"MaxResetScore":        {http2.DefaultMaxResetScore},
		"MaxControlQueued":     {http2.DefaultMaxControlQueued},
	}
}

// structSections are the sections of docs/options.md whose rows are the
// fields of the struct type of the same name, with their defaults.
var structSections = map[string]func() map[string][]int64{
	"WSConfig":    wsConfigDefaults,
	"HTTP2Limits": http2LimitsDefaults,
}

// docRow is one row of an options table: the names in its first cell and
// its default cell.
type docRow struct {
	section, def string
	line         int
}

var (
	optionName = regexp.MustCompile("`((?:[a-z]+\\.)?[A-Z][A-Za-z0-9]*)\\(")
	fieldName  = regexp.MustCompile("`([A-Z][A-Za-z0-9]*)`")
	quantity   = regexp.MustCompile(`(?:^|[^\w.])(\d[\d,]*(?:\.\d+)?)\s*(KiB|MiB|GiB|ms|µs|s\b)?`)
)

// parseOptionsDoc returns the option rows and the field rows of each
// struct section (structSections) of docs/options.md, failing on a row
// that names nothing or a name given twice.
func parseOptionsDoc(t *testing.T) (options map[string]docRow, fields map[string]map[string]docRow) {
	t.Helper()
	b, err := os.ReadFile("docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	options, fields = map[string]docRow{}, map[string]map[string]docRow{}
	lines := strings.Split(string(b), "\n")
	section := ""
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			section = strings.TrimPrefix(l, "## ")
			continue
		}
		if !strings.HasPrefix(l, "|") || strings.HasPrefix(l, "|---") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---") {
			continue // a header row
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		if len(cells) < 3 {
			t.Errorf("docs/options.md:%d: a row needs name, default and meaning: %s", i+1, l)
			continue
		}
		row := docRow{section: section, def: strings.TrimSpace(cells[1]), line: i + 1}
		into, re := options, optionName
		if structSections[section] != nil {
			if fields[section] == nil {
				fields[section] = map[string]docRow{}
			}
			into, re = fields[section], fieldName
		}
		ms := re.FindAllStringSubmatch(cells[0], -1)
		if len(ms) == 0 {
			t.Errorf("docs/options.md:%d: the row names no option: %s", i+1, cells[0])
		}
		for _, m := range ms {
			if prev, dup := into[m[1]]; dup {
				t.Errorf("docs/options.md:%d: %s has a row already (line %d)", i+1, m[1], prev.line)
			}
			into[m[1]] = row
		}
	}
	return options, fields
}

// parsePackage parses the non-test Go files of dir.
func parsePackage(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// codeOptions returns the option constructors of the package in dir: the
// exported functions returning an exported func type named ...Option.
func codeOptions(t *testing.T, dir string) []string {
	t.Helper()
	files := parsePackage(t, dir)
	types := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, fn := ts.Type.(*ast.FuncType); fn && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Option") {
					types[ts.Name.Name] = true
				}
			}
		}
	}
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() || fd.Type.Results == nil || len(fd.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fd.Type.Results.List[0].Type.(*ast.Ident); ok && types[id.Name] {
				names = append(names, fd.Name.Name)
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: no option constructors found", dir)
	}
	return names
}

// structFields returns the exported fields of the struct type name in dir.
func structFields(t *testing.T, dir, name string) []string {
	t.Helper()
	for _, f := range parsePackage(t, dir) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || ts.Name.Name != name {
					continue
				}
				var fields []string
				for _, fl := range st.Fields.List {
					for _, n := range fl.Names {
						if n.IsExported() {
							fields = append(fields, n.Name)
						}
					}
				}
				return fields
			}
		}
	}
	t.Fatalf("%s: no struct type %s", dir, name)
	return nil
}

// quantities returns the numbers of a default cell, with their units
// applied: KiB, MiB and GiB in bytes, ms, µs and s as a time.Duration.
func quantities(cell string) []int64 {
	var out []int64
	for _, m := range quantity.FindAllStringSubmatch(cell, -1) {
		f, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			continue
		}
		switch m[2] {
		case "KiB":
			f *= 1 << 10
		case "MiB":
			f *= 1 << 20
		case "GiB":
			f *= 1 << 30
		case "s":
			f *= float64(time.Second)
		case "ms":
			f *= float64(time.Millisecond)
		case "µs":
			f *= float64(time.Microsecond)
		}
		out = append(out, int64(f))
	}
	return out
}

func checkDefaults(t *testing.T, rows map[string]docRow, want map[string][]int64) {
	t.Helper()
	for name, w := range want {
		row, ok := rows[name]
		if !ok {
			continue // reported as a missing row
		}
		got := quantities(row.def)
		if len(got) < len(w) || !slices.Equal(got[:len(w)], w) {
			t.Errorf("docs/options.md:%d: %s's default says %q (%v), the code's is %v", row.line, name, row.def, got, w)
		}
	}
}

// TestOptionsReference fails when an option exists without a row in
// docs/options.md, a row names an option that does not exist, or a
// documented numeric default is not the code's.
func TestOptionsReference(t *testing.T) {
	options, fields := parseOptionsDoc(t)
	var code []string
	for _, p := range optionPackages {
		for _, n := range codeOptions(t, p.dir) {
			code = append(code, p.qual+n)
		}
	}
	sort.Strings(code)
	for _, n := range code {
		if _, ok := options[n]; !ok {
			t.Errorf("option %s has no row in docs/options.md", n)
		}
	}
	for n, row := range options {
		if !slices.Contains(code, n) {
			t.Errorf("docs/options.md:%d: %s is not an option of the code", row.line, n)
		}
	}
	for typ, defaults := range structSections {
		names := structFields(t, ".", typ)
		for _, n := range names {
			if _, ok := fields[typ][n]; !ok {
				t.Errorf("%s.%s has no row in docs/options.md's %s table", typ, n, typ)
			}
		}
		for n, row := range fields[typ] {
			if !slices.Contains(names, n) {
				t.Errorf("docs/options.md:%d: %s has no field %s", row.line, typ, n)
			}
		}
		checkDefaults(t, fields[typ], defaults())
	}
	checkDefaults(t, options, optionDefaults())
}

// markdownFiles are the documents whose links and names are checked.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "benchmarks/README.md", "benchmarks/RESULTS.md"}
	for _, g := range []string{"docs/*.md", "examples/*/README.md"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// anchors returns the heading anchors of a Markdown file as GitHub makes
// them: lowercased, punctuation but '-' and '_' dropped, spaces to '-',
// "-1", "-2"... after repeats. Headings inside code fences do not count.
func anchors(text string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks fails on a relative link in the Markdown files to a file
// that does not exist, or to an anchor its target does not have.
func TestDocsLinks(t *testing.T) {
	for _, file := range markdownFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(link, "#")
			target := file
			if path != "" {
				target = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %s: %v", file, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			tb, err := os.ReadFile(target)
			if err != nil || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %s: an anchor into something that is not a Markdown file", file, link)
				continue
			}
			if !anchors(string(tb))[anchor] {
				t.Errorf("%s: link %s: %s has no heading #%s", file, link, target, anchor)
			}
		}
	}
}

// exportedNames returns the exported top-level names of the package in dir,
// and the exported methods and fields of its types as "Type.Name".
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	for _, f := range parsePackage(t, dir) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
					continue
				}
				rt := d.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									names[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// TestDocsNames fails when the Markdown files name an exported identifier
// of one of gwist's packages (gwist.X, middleware.X, …), a Ctx method
// (c.X(…)), an App method (app.X(…)) or a WSConn method (ws.X(…)) that
// the code does not have.
func TestDocsNames(t *testing.T) {
	pkgs := map[string]string{
		"gwist": ".", "middleware": "middleware", "metrics": "metrics", "tracing": "tracing",
		"wsclient": "websocket/wsclient", "websocket": "websocket", "proxyproto": "proxyproto",
	}
	known := map[string]map[string]bool{}
	for q, dir := range pkgs {
		known[q] = exportedNames(t, dir)
	}
	receivers := map[string]string{"c": "Ctx", "app": "App", "ws": "WSConn"}
	qualified := regexp.MustCompile(`\b(gwist|middleware|metrics|tracing|wsclient|websocket|proxyproto)\.([A-Z]\w*)`)
	method := regexp.MustCompile(`\b(c|app|ws)\.([A-Z]\w*)\(`)
	for _, file := range markdownFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range qualified.FindAllStringSubmatch(text, -1) {
			if !known[m[1]][m[2]] {
				t.Errorf("%s: %s.%s does not exist", file, m[1], m[2])
			}
		}
		for _, m := range method.FindAllStringSubmatch(text, -1) {
			if !known["gwist"][receivers[m[1]]+"."+m[2]] {
				t.Errorf("%s: %s.%s(: %s has no method %s", file, m[1], m[2], receivers[m[1]], m[2])
			}
		}
	}
}
