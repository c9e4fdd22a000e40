// Package router maps an HTTP method and request path to a value of any type
// (usually a handler) through one radix tree per method.
//
// # Patterns
//
// A pattern starts with '/' and is made of:
//
//   - static text, matched byte for byte;
//   - named parameters ":name", which match one non-empty path segment (up to
//     the next '/' or the end of the path), e.g. "/users/:id";
//   - a catch-all "*name", which must end the pattern and matches the rest of
//     the path, including nothing, e.g. "/static/*path". The value carries no
//     leading '/': "/static/css/a.css" gives path="css/a.css" and "/static/"
//     gives path="".
//
// The net/http ServeMux (and chi) forms are accepted as aliases: "{name}"
// is ":name", "{name...}" is "*name", and a final "{$}" (as in "/a/{$}")
// adds nothing, since static paths here always match exactly. Braces must
// form a whole segment: "/x{id}", "/{id}.json" or an unclosed "{" panic at
// registration with a message naming the syntax to use, rather than
// registering a literal path that never matches. Result.Pattern is the
// pattern as written, braces included.
//
// ':' and '*' start a wildcard only at the beginning of a segment (right after
// a '/'); elsewhere they are literal bytes, so "/v1/items:batch" is static.
// Parameter names must be non-empty, unique within a pattern and free of ':'
// and '*'.
//
// # Matching
//
// At every position a static match beats a parameter, which beats a
// catch-all, and a failed branch backtracks to the next alternative: with
// "/users/new/settings" and "/users/:id/profile" registered, the path
// "/users/new/profile" matches the second one with id="new". A parameter
// always consumes exactly one segment, so each tree node is tried at most once
// per lookup and backtracking cannot blow up.
//
// Paths are matched verbatim: there is no cleaning of "." or "//" segments and
// no percent-decoding, so "/a%2Fb" is one segment. Parameter values are
// substrings of the path given to Lookup, not copies: they share its memory
// and stay valid only as long as that string (or the buffer behind it) does.
//
// # Lookup outcome
//
// Router.Lookup tries, in order:
//
//  1. the tree of the request method (Found);
//  2. for HEAD, the GET tree (Found with the GET value);
//  3. for OPTIONS, whether any method has the path (AutoOptions);
//  4. when Router.RedirectTrailingSlash is set, the path with its trailing
//     '/' removed or added, in the same tree(s) as steps 1 and 2
//     (RedirectTrailingSlash); never for "/";
//  5. whether another method has the path (MethodNotAllowed);
//  6. otherwise NotFound.
//
// Register every route before serving: Handle is not safe for concurrent use,
// while Lookup, Allowed and Routes are, because they only read the trees.
// The request-target "*" (as in "OPTIONS * HTTP/1.1") is not a path and is
// left to the caller.
package router
