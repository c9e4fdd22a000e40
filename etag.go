package gwist

import (
	"embed"
	"encoding/hex"
	"hash/fnv"
	"io"
	"io/fs"
	"strconv"
	"sync"
	"time"
)

// fileETag is the file's strong ETag from its modification time and size
// (like nginx's), "" when the modification time is unknown.
func fileETag(info fs.FileInfo) string {
	mt := info.ModTime()
	if mt.IsZero() || mt.Equal(time.Unix(0, 0)) {
		return ""
	}
	b := make([]byte, 0, 36)
	b = append(b, '"')
	b = strconv.AppendInt(b, mt.UnixNano(), 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, info.Size(), 16)
	return string(append(b, '"'))
}

// hashETags caches content-hash ETags for files without a modification
// time (embed.FS has none), each file hashed once. Caching assumes such a
// file does not change while it is served, true of embed.FS and fs.Sub of
// one; the key includes the size, so a file that changes size is hashed
// again.
type hashETags struct{ m sync.Map } // hashKey -> string

type hashKey struct {
	name string
	size int64
}

// embedETags is the cache for Ctx.FileFS with an embed.FS (Static and
// StaticFS have one per route).
var embedETags sync.Map // embedKey -> *hashETags

type embedKey struct{ fsys embed.FS }

// contentETag returns the cached content-hash ETag of f (name, size
// bytes), computing it on first use: with cache, or, when cache is nil,
// with the package's cache for an embed.FS fsys. Other file systems
// without modification times get no ETag (their files may change).
func contentETag(cache *hashETags, fsys fs.FS, name string, size int64, f fs.File) (string, error) {
	if cache == nil {
		efs, ok := fsys.(embed.FS)
		if !ok {
			return "", nil
		}
		v, _ := embedETags.LoadOrStore(embedKey{efs}, &hashETags{})
		cache = v.(*hashETags)
	}
	key := hashKey{name, size}
	if v, ok := cache.m.Load(key); ok {
		return v.(string), nil
	}
	ra := readerAt(f)
	if ra == nil {
		return "", nil
	}
	h := fnv.New64a()
	if _, err := io.Copy(h, io.NewSectionReader(ra, 0, size)); err != nil {
		return "", err
	}
	tag := `"` + hex.EncodeToString(h.Sum(nil)) + `"`
	cache.m.Store(key, tag)
	return tag, nil
}
