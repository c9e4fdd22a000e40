package router

import "unsafe"

// unsafeData returns the address of s's bytes, to check that values are substrings.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
