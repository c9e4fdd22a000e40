package http1

import (
	"sync/atomic"
	"time"
)

// imfFixdate is the layout of the Date field (RFC 9110 section 5.6.7).
const imfFixdate = "Mon, 02 Jan 2006 15:04:05 GMT"

// DateCache holds the current IMF-fixdate for the Date field, so responses
// do not format the time. The engine refreshes it once a second. It is safe
// for concurrent use; the zero value is ready.
type DateCache struct {
	cur atomic.Pointer[dateStamp]
}

type dateStamp struct {
	unix int64
	text []byte
}

// Refresh sets the cached date to now (a no-op within the same second).
func (d *DateCache) Refresh(now time.Time) {
	sec := now.Unix()
	if s := d.cur.Load(); s != nil && s.unix == sec {
		return
	}
	d.cur.Store(&dateStamp{unix: sec, text: now.UTC().AppendFormat(make([]byte, 0, len(imfFixdate)), imfFixdate)})
}

// Append appends the cached date to dst. If the cache was never refreshed
// it is filled once with the current time.
func (d *DateCache) Append(dst []byte) []byte {
	s := d.cur.Load()
	if s == nil {
		d.Refresh(time.Now())
		s = d.cur.Load()
	}
	return append(dst, s.text...)
}

// Date is the process-wide cache that AppendHead and AppendError use.
var Date DateCache
