package gwist

import (
	"net/url"
	"strings"
)

// QueryAll returns every value of the query parameter name, decoded, in
// order ("?tag=a&tag=b" gives ["a" "b"]); nil when absent. The strings
// are copies, safe to keep.
func (c *Ctx) QueryAll(name string) []string {
	var out []string
	for q := c.ex.Request.RawQuery; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k != name {
			dk, err := url.QueryUnescape(k)
			if err != nil || dk != name {
				continue
			}
		}
		d, err := url.QueryUnescape(v)
		if err != nil {
			d = v
		}
		out = append(out, strings.Clone(d))
	}
	return out
}

// QueryValues returns the whole query, decoded, as url.Values (a copy the
// handler may keep and change). Pairs with an invalid escape are skipped.
func (c *Ctx) QueryValues() url.Values {
	v, _ := url.ParseQuery(strings.Clone(c.ex.Request.RawQuery))
	return v
}
