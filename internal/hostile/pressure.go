package hostile

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Pressure is the machine's stall time so far, from Linux's pressure
// stall information (/proc/pressure): how long some task waited for a CPU,
// for I/O and for memory. Told across a soak, it says whether a slow live
// client met a busy machine rather than a slow server.
type Pressure struct {
	CPU, IO, Memory time.Duration
}

// ReadPressure reads the "some" totals of /proc/pressure/{cpu,io,memory}.
// It fails where the kernel has no PSI (not Linux, or built without it).
func ReadPressure() (Pressure, error) {
	var p Pressure
	for _, f := range []struct {
		name string
		dst  *time.Duration
	}{{"cpu", &p.CPU}, {"io", &p.IO}, {"memory", &p.Memory}} {
		b, err := os.ReadFile("/proc/pressure/" + f.name)
		if err != nil {
			return Pressure{}, err
		}
		line, _, _ := strings.Cut(string(b), "\n") // "some avg10=… total=µs"
		_, total, ok := strings.Cut(line, "total=")
		if !ok || !strings.HasPrefix(line, "some ") {
			return Pressure{}, fmt.Errorf("/proc/pressure/%s: no \"some … total=\" line in %q", f.name, line)
		}
		var us int64
		if _, err := fmt.Sscan(total, &us); err != nil {
			return Pressure{}, fmt.Errorf("/proc/pressure/%s: total %q: %v", f.name, total, err)
		}
		*f.dst = time.Duration(us) * time.Microsecond
	}
	return p, nil
}

// Sub is the stall time from q to p.
func (p Pressure) Sub(q Pressure) Pressure {
	return Pressure{CPU: p.CPU - q.CPU, IO: p.IO - q.IO, Memory: p.Memory - q.Memory}
}
