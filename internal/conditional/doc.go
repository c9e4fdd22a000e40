// Package conditional decides how to answer a GET or HEAD for a resource
// with a known size, modification time and ETag: the conditional request
// headers of RFC 9110 section 13 (If-Match, If-None-Match,
// If-Modified-Since, If-Unmodified-Since, If-Range) and byte ranges
// (section 14). It does no I/O; the caller sends what it decides.
package conditional
