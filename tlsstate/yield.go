package tlsstate

// Yield runs f with the Conn's notifications held back, and the loop takes
// their place: it calls Process as soon as Yield returns, as it would when
// notified. f is typically runtime.Gosched, run right after a Feed woke the
// handshake goroutine, so that the goroutine runs at once on the loop's own
// thread. When the handshake finishes (or fails, or times out) inside f,
// the notification, and the loop's wake-up for it, would be wasted: the
// loop finds the result in its own Process call. Loop only; f must not
// call the Conn's methods.
func (c *Conn) Yield(f func()) {
	c.mu.Lock()
	c.yielding = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.yielding = false
		c.mu.Unlock()
	}()
	f()
}
