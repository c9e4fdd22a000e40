package router

import (
	"fmt"
	"strings"
)

// route is what a registered pattern stores at the node where it ends.
type route[H any] struct {
	handler H
	pattern string
}

// node is one vertex of a method's radix tree.
//
// A static node matches the bytes of prefix; its static children are told
// apart by their first byte (kept in indices, in the order of children). A
// node whose full path ends with '/' may also have a param child (one
// segment) and a catch-all child (the rest). A param node matches one
// segment and then only has static children, which all start with '/'. A
// catch-all node is always a leaf.
//
// Example: "/users/new", "/users/:id/profile", "/src/*path" give
//
//	"/"
//	├─ "users/"
//	│   ├─ "new"          route
//	│   └─ :id
//	│       └─ "/profile" route
//	└─ "src/"
//	    └─ *path          route
type node[H any] struct {
	prefix   string     // static text matched by this node ("" for root and wildcards)
	indices  string     // first byte of each static child, parallel to children
	children []*node[H] // static children
	param    *node[H]   // ":name" child
	catchAll *node[H]   // "*name" child
	name     string     // wildcard name, for param and catch-all nodes
	origin   string     // pattern that created this wildcard node, for conflict messages
	route    *route[H]  // set when a pattern ends here
}

// insert adds pattern (already split into pieces) with value h below root n.
// It panics on a conflict before changing anything that matters: a conflict
// can only happen along nodes that already exist, because everything below
// a newly created node is new too.
func (n *node[H]) insert(method, pattern string, pieces []piece, h H) {
	for _, p := range pieces {
		switch p.kind {
		case pieceStatic:
			n = n.staticChild(p.text)
		case pieceParam:
			if n.param == nil {
				n.param = &node[H]{name: p.text, origin: pattern}
			} else if n.param.name != p.text {
				panic(fmt.Sprintf("router: %s %s conflicts with existing %s %s: parameters :%s and :%s at the same position",
					method, pattern, method, n.param.origin, p.text, n.param.name))
			}
			n = n.param
		case pieceCatchAll:
			if n.catchAll == nil {
				n.catchAll = &node[H]{name: p.text, origin: pattern}
			} else if n.catchAll.name != p.text {
				panic(fmt.Sprintf("router: %s %s conflicts with existing %s %s: catch-alls *%s and *%s at the same position",
					method, pattern, method, n.catchAll.origin, p.text, n.catchAll.name))
			}
			n = n.catchAll
		}
	}
	if n.route != nil {
		panic(fmt.Sprintf("router: %s %s conflicts with existing %s %s: already registered",
			method, pattern, method, n.route.pattern))
	}
	n.route = &route[H]{handler: h, pattern: pattern}
}

// staticChild returns the node reached from n by the static text s, creating
// it (and splitting an existing prefix) as needed.
func (n *node[H]) staticChild(s string) *node[H] {
	for s != "" {
		i := strings.IndexByte(n.indices, s[0])
		if i < 0 {
			c := &node[H]{prefix: s}
			n.indices += s[:1]
			n.children = append(n.children, c)
			return c
		}
		c := n.children[i]
		l := commonPrefix(s, c.prefix)
		if l < len(c.prefix) {
			// Split c: the tail keeps all that c had; c becomes the shared head.
			tail := *c
			tail.prefix = c.prefix[l:]
			*c = node[H]{prefix: c.prefix[:l], indices: tail.prefix[:1], children: []*node[H]{&tail}}
		}
		n, s = c, s[l:]
	}
	return n
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// find returns the route that matches below n, n's own text being consumed
// already, or nil. The rest to match is path, followed by one more '/' when
// slash is set (to test a trailing-slash redirect without building the
// string). Parameters are appended to ps unless it is nil; slash requires a
// nil ps, since a value could not include the virtual '/'.
//
// Static children are tried first, then the param child, then the catch-all;
// a failed branch undoes its parameters and falls through to the next.
func (n *node[H]) find(path string, slash bool, ps *Params) *route[H] {
	if path == "" && !slash {
		if n.route != nil {
			return n.route
		}
		if n.catchAll != nil {
			ps.push(n.catchAll.name, "")
			return n.catchAll.route
		}
		return nil
	}
	first := byte('/')
	if path != "" {
		first = path[0]
	}
	if i := indexByte(n.indices, first); i >= 0 {
		c := n.children[i]
		if rest, sl, ok := cut(path, slash, c.prefix); ok {
			if r := c.find(rest, sl, ps); r != nil {
				return r
			}
		}
	}
	if n.param != nil {
		end := indexByte(path, '/')
		if end < 0 {
			end = len(path) // a virtual '/' would end the segment here too
		}
		if end > 0 {
			m := ps.mark()
			ps.push(n.param.name, path[:end])
			if r := n.param.find(path[end:], slash, ps); r != nil {
				return r
			}
			ps.reset(m)
		}
	}
	if n.catchAll != nil {
		ps.push(n.catchAll.name, path)
		return n.catchAll.route
	}
	return nil
}

// cut removes prefix from path (+ a virtual '/' when slash is set) and
// returns the rest, whether the virtual '/' is still pending, and whether
// prefix matched at all.
func cut(path string, slash bool, prefix string) (string, bool, bool) {
	if len(path) >= len(prefix) {
		if path[:len(prefix)] == prefix {
			return path[len(prefix):], slash, true
		}
		return "", false, false
	}
	if slash && len(prefix) == len(path)+1 && prefix[len(path)] == '/' && prefix[:len(path)] == path {
		return "", false, true
	}
	return "", false, false
}

// indexByte is strings.IndexByte for the short strings of a lookup (child
// indices, one path segment), where a plain loop beats the assembly call.
func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
