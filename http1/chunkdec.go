package http1

import "bytes"

// Chunked body decoder (RFC 9112 section 7.1):
//
//	chunked-body = *chunk last-chunk trailer-section CRLF
//	chunk        = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//	chunk-ext    = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
//	ext-val      = token / quoted-string
//
// Size lines are read a byte at a time (they are short); chunk data is
// copied in bulk; the trailer section is read by lines. Extensions are
// checked and dropped.

// Chunk decoder states.
const (
	csSize        uint8 = iota // hex digits
	csBeforeSemi               // BWS before ';'
	csExtBWS                   // after ';', before the name
	csExtName                  // in an extension name
	csAfterName                // BWS after the name
	csValBWS                   // after '=', before the value
	csExtTok                   // in a token value
	csQuoted                   // in a quoted-string value
	csQuotedPair               // after '\' in a quoted-string
	csAfterQuoted              // after the closing quote
	csSizeLF                   // the LF ending the size line
	csData                     // chunk data
	csDataCR                   // the CR after chunk data
	csDataLF                   // the LF after chunk data
	csTrailer                  // the trailer section
)

const (
	maxChunkDigits = 16   // hex digits of a chunk size
	maxChunkLine   = 4096 // bytes of a chunk size line, extensions included
)

// readChunked decodes chunked body bytes into r, or for a streamed body
// returns at the end of each run of chunk data, which is then in p.data.
func (p *Parser) readChunked(r *Request, buf []byte) (int, Event, *Error) {
	i := 0
	for i < len(buf) {
		switch p.cs {
		case csData:
			take := len(buf) - i
			if uint64(take) > p.csize {
				take = int(p.csize)
			}
			if p.stream {
				p.data = buf[i : i+take]
				i += take
				p.csize -= uint64(take)
				if p.csize == 0 {
					p.cs = csDataCR
				}
				return i, BodyData, nil
			}
			r.body = append(growBytes(r.body, take, int(p.Limits.MaxBody())), buf[i:i+take]...)
			r.Body = r.body
			i += take
			p.csize -= uint64(take)
			if p.csize == 0 {
				p.cs = csDataCR
			}
			continue
		case csTrailer:
			n, done, e := p.readTrailer(r, buf[i:])
			if e != nil {
				return 0, NeedMore, e
			}
			i += n
			if done {
				p.finishTrailers(r)
				p.endMessage()
				return i, MessageComplete, nil
			}
			continue
		}
		if e := p.chunkByte(r, buf[i]); e != nil {
			return 0, NeedMore, e
		}
		i++
	}
	return i, NeedMore, nil
}

// chunkByte advances the decoder over one byte of a size line or of the
// CRLF after chunk data.
func (p *Parser) chunkByte(r *Request, c byte) *Error {
	if p.cs < csData {
		p.cline++
		if p.cline > maxChunkLine {
			return &errChunkExtLong
		}
	}
	ws := c == ' ' || c == '\t'
	switch p.cs {
	case csSize:
		if h := unhex(c); h >= 0 {
			p.cdigits++
			if p.cdigits > maxChunkDigits {
				return &errChunkSizeLong
			}
			p.csize = p.csize<<4 | uint64(h)
			if p.csize > 1<<63-1 {
				return &errChunkSizeLong
			}
			if p.total+p.csize > uint64(p.bodyMax) {
				return &errBodyTooLarge
			}
			return nil
		}
		switch {
		case p.cdigits == 0:
			return &errChunkSize
		case c == '\n':
			return &errChunkLineEnd
		case !ws && c != ';' && c != '\r':
			return &errChunkSize
		}
		return p.afterExtValue(c)
	case csBeforeSemi:
		switch {
		case ws:
		case c == ';':
			p.cs = csExtBWS
		default:
			return &errChunkExt
		}
	case csExtBWS:
		switch {
		case ws:
		case isTchar[c]:
			p.cs = csExtName
		default:
			return &errChunkExt
		}
	case csExtName:
		switch {
		case isTchar[c]:
		case ws:
			p.cs = csAfterName
		case c == '=':
			p.cs = csValBWS
		case c == ';':
			p.cs = csExtBWS
		case c == '\r':
			p.cs = csSizeLF
		default:
			return &errChunkExt
		}
	case csAfterName:
		switch {
		case ws:
		case c == '=':
			p.cs = csValBWS
		case c == ';':
			p.cs = csExtBWS
		default:
			return &errChunkExt
		}
	case csValBWS:
		switch {
		case ws:
		case c == '"':
			p.cs = csQuoted
		case isTchar[c]:
			p.cs = csExtTok
		default:
			return &errChunkExt
		}
	case csExtTok:
		if !isTchar[c] {
			return p.afterExtValue(c)
		}
	case csQuoted:
		switch {
		case c == '"':
			p.cs = csAfterQuoted
		case c == '\\':
			p.cs = csQuotedPair
		case c == '\t' || (c >= 0x20 && c != 0x7f):
		default:
			return &errChunkExt
		}
	case csQuotedPair:
		if c != '\t' && (c < 0x20 || c == 0x7f) {
			return &errChunkExt
		}
		p.cs = csQuoted
	case csAfterQuoted:
		return p.afterExtValue(c)
	case csSizeLF:
		if c != '\n' {
			return &errChunkLineEnd
		}
		if p.csize == 0 {
			p.cs = csTrailer
			p.tline, p.tcount = 0, 0
			p.toffs = p.toffs[:0]
			r.trail = r.trail[:0]
			return nil
		}
		p.total += p.csize
		p.cs = csData
	case csDataCR:
		if c != '\r' {
			return &errChunkDataEnd
		}
		p.cs = csDataLF
	case csDataLF:
		if c != '\n' {
			return &errChunkDataEnd
		}
		p.cs, p.csize, p.cdigits, p.cline = csSize, 0, 0, 0
	}
	return nil
}

// afterExtValue handles the byte after a chunk size or an extension value:
// BWS, the next ';', or the CR ending the line.
func (p *Parser) afterExtValue(c byte) *Error {
	switch c {
	case ' ', '\t':
		p.cs = csBeforeSemi
	case ';':
		p.cs = csExtBWS
	case '\r':
		p.cs = csSizeLF
	default:
		return &errChunkExt
	}
	return nil
}

// readTrailer reads trailer-section bytes into r.trail, a line at a time,
// checking each field line as it completes. It reports how much of buf it
// used and whether the empty line ending the section was read.
func (p *Parser) readTrailer(r *Request, buf []byte) (int, bool, *Error) {
	lim := p.Limits.maxHeader()
	i := 0
	for i < len(buf) {
		if p.trailerBareCR(r.trail, buf[i:], lim) {
			return 0, false, &errBareCR
		}
		j := bytes.IndexByte(buf[i:], '\n')
		if j < 0 {
			rest := buf[i:]
			if len(r.trail)+len(rest) > lim {
				return 0, false, &errTrailerTooLarge
			}
			r.trail = append(growBytes(r.trail, len(rest), lim), rest...)
			return len(buf), false, nil
		}
		line := buf[i : i+j+1]
		if len(r.trail)+len(line) > lim {
			return 0, false, &errTrailerTooLarge
		}
		r.trail = append(growBytes(r.trail, len(line), lim), line...)
		i += len(line)
		lf := len(r.trail) - 1
		ls := p.tline
		if lf == ls || r.trail[lf-1] != '\r' {
			return 0, false, &errBareLF
		}
		if lf == ls+1 {
			return i, true, nil
		}
		p.tcount++
		if p.tcount > p.Limits.maxCount() {
			return 0, false, &errTooManyTrailers
		}
		ne, vs, ve, e := parseFieldLine(r.trail[ls : lf-1])
		if e != nil {
			return 0, false, e
		}
		p.toffs = append(p.toffs, int32(ls), int32(ls+ne), int32(ls+vs), int32(ls+ve))
		p.tline = lf + 1
	}
	return i, false, nil
}

// trailerBareCR reports whether the trailer line being read (its start at
// p.tline in trail, the rest of it in more) starts with a CR followed by
// anything but LF. Only the empty line ending the section starts with CR,
// so this is final at once; without it "0\r\n\rM" would wait for an LF
// that never comes. The CR's follower must lie within the trailer limit, so
// that a 431 decided earlier in the stream still wins.
func (p *Parser) trailerBareCR(trail, more []byte, lim int) bool {
	if p.tline+2 > lim {
		return false
	}
	var c [2]byte
	n := copy(c[:], trail[p.tline:])
	n += copy(c[n:], more)
	return n == 2 && c[0] == '\r' && c[1] != '\n'
}

// finishTrailers points r.Trailers at the complete trailer section.
func (p *Parser) finishTrailers(r *Request) {
	if len(p.toffs) == 0 {
		return
	}
	t := r.tfields[:0]
	for k := 0; k+3 < len(p.toffs); k += 4 {
		o := p.toffs[k : k+4]
		t = append(t, HeaderField{Name: bstr(r.trail[o[0]:o[1]]), Value: bstr(r.trail[o[2]:o[3]])})
	}
	r.tfields = t
	r.Trailers = t
}
