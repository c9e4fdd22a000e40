package main

// terminator ends an HTTP/1.1 request head.
const terminator = "\r\n\r\n"

// countHeads returns how many request heads end in data, given that the
// previous call left state bytes of terminator already matched, and the
// state to carry into the next call. Bodies are not understood: this server
// is a ceiling for GET traffic, not an HTTP implementation.
func countHeads(data []byte, state int) (n, next int) {
	for _, b := range data {
		switch {
		case b == terminator[state]:
			state++
			if state == len(terminator) {
				n++
				state = 0
			}
		case b == '\r':
			state = 1
		default:
			state = 0
		}
	}
	return n, state
}
