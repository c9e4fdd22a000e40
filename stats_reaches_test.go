package gwist_test

import (
	"runtime"
	"testing"

	"github.com/gwist/gwist"
)

// Stats reports the reaches past gnet's and crypto/tls's APIs: all in use
// on Linux with the verified versions (README: Verified dependency
// versions).
func TestStatsReaches(t *testing.T) {
	app := gwist.New()
	startApp(t, app)
	got := app.Stats().Reaches
	want := gwist.ReachStats{ReadPause: runtime.GOOS == "linux", WorkerWrites: true, TLSBufferTrim: true, WebSocketRoutes: true, RawAccept: runtime.GOOS == "linux"}
	if got != want {
		t.Errorf("Stats().Reaches = %+v, want %+v", got, want)
	}
}
