package engine

import (
	"errors"
	"time"

	"github.com/panjf2000/ants/v2"
)

// ErrOverloaded is returned when every worker is busy; the engine answers
// such requests with 503 and Retry-After.
var ErrOverloaded = errors.New("engine: all workers busy")

// Workers is a bounded pool of goroutines that run handlers. Several servers
// (a plaintext and a TLS listener, say) can share one.
type Workers struct {
	pool *ants.PoolWithFuncGeneric[*batch]
}

// NewWorkers starts a pool of at most size goroutines (DefaultWorkers when
// size <= 0). When all of them are busy a new batch of requests is refused
// at once rather than queued without bound.
func NewWorkers(size int) (*Workers, error) {
	if size <= 0 {
		size = DefaultWorkers
	}
	p, err := ants.NewPoolWithFuncGeneric(size, runBatch,
		ants.WithNonblocking(true),
		ants.WithExpiryDuration(10*time.Second))
	if err != nil {
		return nil, err
	}
	return &Workers{pool: p}, nil
}

// Running reports how many workers are running handlers now.
func (w *Workers) Running() int { return w.pool.Running() }

// Cap reports the pool's size.
func (w *Workers) Cap() int { return w.pool.Cap() }

// Release stops the pool's idle goroutines, waiting up to timeout for busy
// ones to finish.
func (w *Workers) Release(timeout time.Duration) error {
	return w.pool.ReleaseTimeout(timeout)
}

func (w *Workers) submit(b *batch) error {
	if err := w.pool.Invoke(b); err != nil {
		if errors.Is(err, ants.ErrPoolOverload) {
			return ErrOverloaded
		}
		return err
	}
	return nil
}
