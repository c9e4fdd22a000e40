package router

// Param is one matched path parameter: Key is the name from the pattern
// (without ':' or '*') and Value the matched part of the path.
type Param struct{ Key, Value string }

// Params holds the parameters of one match, in the order they appear in the
// path. The caller owns it and should reuse it across lookups, keeping its
// capacity, so that lookups allocate nothing.
type Params []Param

// Get returns the value of the parameter named key, or "" when there is none.
func (ps Params) Get(key string) string {
	for i := range ps {
		if ps[i].Key == key {
			return ps[i].Value
		}
	}
	return ""
}

// push appends a parameter; a nil ps records nothing (existence checks).
func (ps *Params) push(key, value string) {
	if ps != nil {
		*ps = append(*ps, Param{key, value})
	}
}

// mark returns the current length, to undo pushes with reset on backtracking.
func (ps *Params) mark() int {
	if ps == nil {
		return 0
	}
	return len(*ps)
}

// reset truncates ps back to a length returned by mark.
func (ps *Params) reset(n int) {
	if ps != nil {
		*ps = (*ps)[:n]
	}
}
