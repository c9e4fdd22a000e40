package serve

import (
	"os"
	"os/signal"
	"syscall"
)

// writeOnSignal arms a peer server's diagnostic file: when the environment
// variable env holds a path, each sig runs write(path) (what names it in
// the error that ends the process if it fails). Unset, nothing is
// installed.
func writeOnSignal(env string, sig syscall.Signal, what string, write func(path string) error) {
	path := os.Getenv(env)
	if path == "" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	go func() {
		for range ch {
			if err := write(path); err != nil {
				Fatal(what, err)
			}
		}
	}()
}
