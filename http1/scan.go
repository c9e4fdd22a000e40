package http1

import "bytes"

// The head is read in two stages.
//
// Stage 1 (this file) is the framing scan. It runs over the bytes as they
// arrive, resuming where it stopped, and finds the lines, the end of the
// head and every violation that can be decided from a prefix of the stream:
// an invalid method byte, a too long request-target (414), a line not ending
// in CRLF, a field line starting with a bare CR, too many fields or too many
// bytes (431). These are decided at a fixed position of the stream and
// reported in stream order, and the scan never looks past MaxHeaderBytes, so
// its outcome does not depend on how the bytes were split.
//
// Stage 2 (head.go) parses the complete head, copied into the Request,
// using the line ends stage 1 recorded.

// parseHeadBytes handles the stHead state: empty lines before the request
// line, then the head.
func (p *Parser) parseHeadBytes(r *Request, buf []byte) (int, Event, *Error) {
	k := 0
	if !p.started {
		for k < len(buf) && !p.started {
			c := buf[k]
			switch {
			case p.leadCR:
				if c != '\n' {
					return 0, NeedMore, &errBareCR
				}
				p.leadCR = false
				p.lead++
				if p.lead > maxLeadingEmptyLines {
					return 0, NeedMore, &errLeadingLines
				}
				k++
			case c == '\r':
				p.leadCR = true
				k++
			case c == '\n':
				return 0, NeedMore, &errBareLF
			default:
				p.started = true
				p.resetScan()
			}
		}
		if !p.started {
			return k, NeedMore, nil
		}
	}
	rest := buf[k:]
	lim := p.Limits.maxHeader()

	if len(p.hbuf) == 0 {
		// Nothing buffered: scan the caller's bytes in place.
		d, over := rest, false
		if len(d) > lim {
			d, over = d[:lim], true
		}
		end, e := p.scanHead(d, over)
		if e != nil {
			return 0, NeedMore, e
		}
		if end == 0 {
			p.hbuf = append(growBytes(p.hbuf, len(d), lim), d...)
			return len(buf), NeedMore, nil
		}
		ev, e := p.completeHead(r, rest[:end])
		if e != nil {
			return 0, NeedMore, e
		}
		return k + end, ev, nil
	}

	old := len(p.hbuf)
	take := min(lim-old, len(rest))
	p.hbuf = append(growBytes(p.hbuf, take, lim), rest[:take]...)
	end, e := p.scanHead(p.hbuf, len(rest) > take)
	if e != nil {
		return 0, NeedMore, e
	}
	if end == 0 {
		return len(buf), NeedMore, nil
	}
	ev, e := p.completeHead(r, p.hbuf[:end])
	if e != nil {
		return 0, NeedMore, e
	}
	return k + end - old, ev, nil
}

// scanHead continues the framing scan over d, the head bytes so far (d[0]
// is the first byte of the request line; d holds at most MaxHeaderBytes).
// over reports that more bytes exist beyond d. It returns the head's length
// (through the LF of the empty line) once complete, 0 while incomplete.
func (p *Parser) scanHead(d []byte, over bool) (int, *Error) {
	i := p.scan
	maxFields := p.Limits.maxCount()
	for {
		if p.nlines == 0 {
			if p.sp1 < 0 {
				// Method: tchar up to the first SP.
				for i < len(d) {
					c := d[i]
					if c == ' ' {
						p.sp1 = i
						i++
						break
					}
					if !isTchar[c] {
						return 0, &errMethod
					}
					i++
				}
				if p.sp1 < 0 {
					break
				}
			}
			if p.sp2 == -1 {
				// Target: up to the next SP, or the LF if none. At most
				// MaxTargetBytes of it fit in the window; a full window
				// without either is a 414.
				// (min: the window can never be full when MaxTargetBytes is at
				// least MaxHeaderBytes, and the sum cannot overflow.)
				wend := p.sp1 + 2 + min(p.Limits.maxTarget(), p.Limits.maxHeader())
				full := wend <= len(d)
				if !full {
					wend = len(d)
				}
				w := d[i:wend]
				lf := bytes.IndexByte(w, '\n')
				ws := w
				if lf >= 0 {
					ws = w[:lf]
				}
				if sp := bytes.IndexByte(ws, ' '); sp >= 0 {
					p.sp2 = i + sp
					i = p.sp2 + 1
				} else if lf >= 0 {
					p.sp2 = -2
					i += lf
				} else {
					i = wend
					if full {
						return 0, &errTargetTooLong
					}
					break
				}
			}
		}
		// A field line never starts with CR: only the empty line ending the
		// head does, so a CR there followed by anything but LF is final.
		// (Without this check "\r\n\rX" would wait for an LF that a client
		// believing its head complete never sends.)
		if p.nlines > 0 && p.lineStart+1 < len(d) && d[p.lineStart] == '\r' && d[p.lineStart+1] != '\n' {
			return 0, &errBareCR
		}
		j := bytes.IndexByte(d[i:], '\n')
		if j < 0 {
			i = len(d)
			break
		}
		lf := i + j
		if lf == p.lineStart || d[lf-1] != '\r' {
			return 0, &errBareLF
		}
		p.lineEnds = append(p.lineEnds, int32(lf))
		if p.nlines > 0 && lf == p.lineStart+1 {
			return lf + 1, nil
		}
		p.nlines++
		if p.nlines-1 > maxFields {
			return 0, &errTooManyFields
		}
		i = lf + 1
		p.lineStart = i
	}
	p.scan = i
	if over {
		return 0, &errHeadTooLarge
	}
	return 0, nil
}
