package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/tlsstate"
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("gwist_"+name, help, labels, nil)
}

// The metrics, in the order of the table in docs/operations.md.
var (
	dRequests = desc("http_requests_total", "Requests answered by the App, by route pattern, method, status class and protocol.",
		"route", "method", "status", "protocol", "tls")
	dDuration = desc("http_request_duration_seconds", "Time from the App's first middleware to the handler's return.", "route", "method")
	dReqSize  = desc("http_request_size_bytes", "Request body sizes.", "route", "method")
	dRespSize = desc("http_response_size_bytes", "Response body sizes, as written by the handler.", "route", "method")

	dConnsOpen    = desc("connections_open", "Open connections, by protocol (a TLS connection is h1 until its handshake chooses h2).", "protocol", "tls")
	dConnsMax     = desc("connections_max", "The cap on open connections (WithMaxConns).")
	dConnsRefused = desc("connections_refused_total", "Connections closed at once, unserved (over the cap, out of descriptors).")
	dAcceptErrors = desc("accept_errors_total", "Failed accepts (EMFILE, ENFILE, ...).")
	dClientGone   = desc("client_gone_errors_total", "Handler errors after the client had left.")

	dQueued   = desc("worker_queue_depth", "Batches of requests waiting for a worker.")
	dRunning  = desc("worker_running", "Handlers running on the worker pool within its bound.")
	dStreams  = desc("worker_streams", "Handlers streaming a response, outside the pool's bound.")
	dRejected = desc("worker_rejected_total", "Batches of requests answered 503 because the worker pool was full.")
	dFeeds    = desc("sse_feeds_open", "SSEFeed streams open.")
	dWS       = desc("websocket_connections_open", "WebSocket connections open.")

	dHandshakes   = desc("tls_handshakes_total", "Completed TLS handshakes, full or resumed.", "resumed")
	dHSVersion    = desc("tls_handshakes_by_version_total", "Completed TLS handshakes by protocol version.", "version")
	dHSALPN       = desc("tls_handshakes_by_alpn_total", "Completed TLS handshakes by negotiated ALPN protocol (\"none\": none).", "alpn")
	dHSFailed     = desc("tls_handshake_failures_total", "Connections that failed before their handshake completed, by reason.", "reason")
	dTLSConnErr   = desc("tls_connection_errors_total", "Established TLS connections that failed later, by reason.", "reason")
	dHSAbandoned  = desc("tls_handshakes_abandoned_total", "TLS connections closed before sending a byte.")
	dHSInFlight   = desc("tls_handshakes_in_flight", "Handshake goroutines running.")
	dHSQueued     = desc("tls_handshakes_queued", "Connections waiting for a handshake goroutine.")
	dSlowLookups  = desc("tls_slow_cert_lookups", "Handshakes waiting on a slow certificate lookup (an ACME order, say), holding no handshake slot.")
	dSlowLookTot  = desc("tls_slow_cert_lookups_total", "Certificate lookups that became slow (longer than 20 ms).")
	dHSSeconds    = desc("tls_handshake_seconds", "Completed handshakes: time from the first byte to established.")
	dHSPhase      = desc("tls_handshake_phase_seconds", "Completed handshakes by phase: hello (reading the ClientHello), queue (waiting for a handshake goroutine), run (the handshake's work and round trips).", "phase")
	dFirstRespSec = desc("tls_first_response_seconds", "Time from a TLS connection's established handshake to its first response written.")

	dH2StreamsOpen = desc("http2_streams_open", "HTTP/2 streams in progress.")
	dH2Streams     = desc("http2_streams_total", "HTTP/2 streams opened by clients.")
	dH2Resets      = desc("http2_resets_total", "RST_STREAM frames received from clients and sent by the server, by error code.", "direction", "code")
	dH2GoAway      = desc("http2_goaways_sent_total", "GOAWAY frames sent, by error code.", "code")
)

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dRequests, dDuration, dReqSize, dRespSize,
		dConnsOpen, dConnsMax, dConnsRefused, dAcceptErrors, dClientGone,
		dQueued, dRunning, dStreams, dRejected, dFeeds, dWS,
		dHandshakes, dHSVersion, dHSALPN, dHSFailed, dTLSConnErr, dHSAbandoned, dHSInFlight, dHSQueued,
		dSlowLookups, dSlowLookTot,
		dHSSeconds, dHSPhase, dFirstRespSec,
		dH2StreamsOpen, dH2Streams, dH2Resets, dH2GoAway} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: it reads the per-request
// counters and App.Stats.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.collectRequests(ch)
	st := m.app.Stats()
	collectConns(ch, &st)
	collectTLS(ch, &st.TLS)
	collectHTTP2(ch, &st)
}

func (m *Metrics) collectRequests(ch chan<- prometheus.Metric) {
	t := m.table.Load()
	if t == nil {
		return
	}
	for j, s := range t.shards[0].all {
		var requests [len(statusClasses)][len(protocols)]uint64
		var latency, reqSize, respSize total
		for _, sh := range t.shards {
			x := sh.all[j]
			for c := range x.requests {
				for p := range x.requests[c] {
					requests[c][p] += x.requests[c][p].Load()
				}
			}
			latency.add(&x.latency)
			reqSize.add(&x.reqSize)
			respSize.add(&x.respSize)
		}
		if latency.count() == 0 {
			continue // never used: keep the exposition to what happened
		}
		for c := range requests {
			for p, n := range requests[c] {
				if n > 0 {
					ch <- prometheus.MustNewConstMetric(dRequests, prometheus.CounterValue, float64(n),
						s.route, s.method, statusClasses[c], protocols[p].name, protocols[p].tls)
				}
			}
		}
		ch <- latency.metric(dDuration, m.latencyBounds, 1e-9, s.route, s.method)
		ch <- reqSize.metric(dReqSize, m.sizeBounds, 1, s.route, s.method)
		ch <- respSize.metric(dRespSize, m.sizeBounds, 1, s.route, s.method)
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v uint64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func collectConns(ch chan<- prometheus.Metric, st *gwist.Stats) {
	var open [len(protocols)]int64 // protocols' order: h1, h1 TLS, h2c, h2 TLS
	for _, l := range st.Listeners {
		tls := 0
		if l.TLS {
			tls = 1
		}
		open[tls] += l.Conns - l.HTTP2Conns
		open[2+tls] += l.HTTP2Conns
	}
	for p, n := range open {
		gauge(ch, dConnsOpen, float64(n), protocols[p].name, protocols[p].tls)
	}
	gauge(ch, dConnsMax, float64(st.MaxConns))
	counter(ch, dConnsRefused, st.RefusedConns)
	counter(ch, dAcceptErrors, st.AcceptErrors)
	counter(ch, dClientGone, st.ClientGoneErrors)
	gauge(ch, dQueued, float64(st.Queued))
	gauge(ch, dRunning, float64(st.Handlers))
	gauge(ch, dStreams, float64(st.Streams))
	counter(ch, dRejected, st.Rejected)
	gauge(ch, dFeeds, float64(st.Feeds))
	gauge(ch, dWS, float64(st.WebSockets))
}

func collectTLS(ch chan<- prometheus.Metric, t *tlsstate.Stats) {
	counter(ch, dHandshakes, t.Full, "false")
	counter(ch, dHandshakes, t.Resumed, "true")
	for v, n := range t.ByVersion {
		counter(ch, dHSVersion, n, v)
	}
	for p, n := range t.ByALPN {
		if p == "" {
			p = "none"
		}
		counter(ch, dHSALPN, n, p)
	}
	for r, n := range t.Failed {
		counter(ch, dHSFailed, n, r)
	}
	for r, n := range t.ConnErrors {
		counter(ch, dTLSConnErr, n, r)
	}
	counter(ch, dHSAbandoned, t.Abandoned)
	gauge(ch, dHSInFlight, float64(t.InFlight))
	gauge(ch, dHSQueued, float64(t.Queued))
	gauge(ch, dSlowLookups, float64(t.SlowLookups))
	counter(ch, dSlowLookTot, t.SlowLookupsTotal)
	ch <- tlsHistogram(dHSSeconds, &t.Phases.Handshake)
	ch <- tlsHistogram(dHSPhase, &t.Phases.Hello, "hello")
	ch <- tlsHistogram(dHSPhase, &t.Phases.Queue, "queue")
	ch <- tlsHistogram(dHSPhase, &t.Phases.Run, "run")
	ch <- tlsHistogram(dFirstRespSec, &t.Phases.Response)
}

var tlsBounds = func() []int64 {
	b := make([]int64, len(tlsstate.HistogramBounds))
	for i, d := range tlsstate.HistogramBounds {
		b[i] = int64(d)
	}
	return b
}()

func tlsHistogram(d *prometheus.Desc, h *tlsstate.Histogram, labels ...string) prometheus.Metric {
	return cumulative(d, tlsBounds, 1e-9, h.Counts[:], h.Sum.Seconds(), labels...)
}

func collectHTTP2(ch chan<- prometheus.Metric, st *gwist.Stats) {
	h := &st.HTTP2
	gauge(ch, dH2StreamsOpen, float64(st.HTTP2Streams))
	counter(ch, dH2Streams, h.StreamsOpened)
	for code, n := range h.ResetByPeerCode {
		counter(ch, dH2Resets, n, "received", code)
	}
	for code, n := range h.ResetBySelfCode {
		counter(ch, dH2Resets, n, "sent", code)
	}
	for code, n := range h.GoAwaySent {
		counter(ch, dH2GoAway, n, code)
	}
}
