//go:build !unix

package engine

// The engine runs on gnet's epoll (Linux) and kqueue (macOS, the BSDs)
// loops and uses Unix socket calls directly. On other systems the build
// stops here, with this identifier's name as the error message.
var _ = gwist_engine_requires_linux_macOS_or_a_BSD
