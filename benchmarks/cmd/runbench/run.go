package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// runWorkload runs w against every applicable server, round after round.
func runWorkload(e *env, w workload, servers []serverDef, missingTools, unavailable map[string]string,
	flagsOf map[string]map[string]bool, logDir string) *table {
	t := &table{w: w}
	if why, missing := missingTools[w.tool]; w.tool != "" && missing {
		t.skipped = why
		return t
	}
	if why := unavailable[w.helper]; w.helper != "" && why != "" {
		t.skipped = w.helper + " " + why
		return t
	}
	for _, s := range servers {
		name := s.name
		if name == baseRow {
			name = "gwist" // the code before takes part where the checkout's does
		}
		if len(w.rows) > 0 {
			if !slices.Contains(w.rows, name) {
				continue
			}
		} else if s.variant && name != "gwist" && !slices.Contains(w.variants, name) {
			continue
		}
		r := &rowResult{def: s}
		switch {
		case unavailable[s.binary] != "":
			r.staticNA = "not available: " + unavailable[s.binary]
		case s.ceiling && w.noCeiling != "":
			r.staticNA = w.noCeiling
		case s.ceiling && w.noH2:
			r.staticNA = "HTTP/1.1 only"
		case w.tls && s.tlsPort == 0:
			r.staticNA = "plaintext only"
		default:
			a := s.args(w.tls, "c", "k")
			if w.static {
				a = append(a, "-static-dir", "d")
			}
			if m := missingFlags(a, flagsOf[s.binary]); len(m) > 0 && !s.cref {
				r.staticNA = "not available: bin/" + s.binary + " has no " + strings.Join(m, ", ") + " flag yet"
			}
		}
		t.rows = append(t.rows, r)
	}
	for round := range e.o.rounds {
		for _, r := range t.rows {
			if r.staticNA != "" {
				continue
			}
			if e.ctx.Err() != nil {
				return t
			}
			o := runOne(e, w, r.def, round, logDir)
			r.rounds = append(r.rounds, o)
			logf("[%s %d/%d] %-16s %s", w.name, round+1, e.o.rounds, r.def.name, progress(w, o))
		}
	}
	return t
}

// runOne starts one server, measures it, and stops it.
func runOne(e *env, w workload, def serverDef, round int, logDir string) outcome {
	base := filepath.Join(logDir, fmt.Sprintf("%s-%s-r%d", w.name, def.name, round+1))
	bin, args := e.bin(def.binary), def.args(w.tls, e.certFile, e.keyFile)
	if def.cref {
		argv, err := crefCommand(e, w, def, round)
		if err != nil {
			return outcome{err: fmt.Errorf("failed to configure: %w", err)}
		}
		bin, args = argv[0], argv[1:]
	} else if w.static {
		args = append(args, "-static-dir", e.staticDir)
	}
	srv, err := startServer(e.ctx, bin, def, args, w.tls, base+".server.log")
	if err != nil {
		return outcome{err: fmt.Errorf("failed to start: %w", err)}
	}
	defer srv.stop()
	me := *e
	me.logPath = base + ".tool.log"
	o := w.run(&me, srv)
	if !srv.alive() && o.err == nil {
		o = outcome{err: fmt.Errorf("server exited during the run (%v): %s", srv.err, srv.log.lastLines(2))}
	}
	return o
}

func progress(w workload, o outcome) string {
	switch {
	case o.err != nil:
		return "FAILED: " + o.err.Error()
	case o.na != "":
		return "n/a: " + o.na
	}
	var parts []string
	for _, m := range w.metrics {
		if v, ok := o.values[m.key]; ok {
			parts = append(parts, m.label+" "+fmtNum(v, m.decimals))
		}
	}
	s := strings.Join(parts, ", ")
	if o.note != "" {
		s += " (" + o.note + ")"
	}
	return s
}
