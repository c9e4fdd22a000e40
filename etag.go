package gwist

import (
	"embed"
	"encoding/hex"
	"hash/fnv"
	"io"
	"io/fs"
	"sync"
)

// embedETags caches the content-hash ETags of embed.FS files, which have
// no modification time; an embed.FS never changes while the program runs,
// so each file is hashed once. Other file systems without modification
// times get no ETag (nor Last-Modified): their files may change.
var embedETags sync.Map // embedKey -> string

type embedKey struct {
	fsys embed.FS
	name string
}

// contentETag is the strong ETag of an embed.FS file from a hash (FNV-1a,
// 64 bits) of its content, and "" for other file systems.
func contentETag(fsys fs.FS, name string, f fs.File) (string, error) {
	efs, ok := fsys.(embed.FS)
	if !ok {
		return "", nil
	}
	key := embedKey{efs, name}
	if v, ok := embedETags.Load(key); ok {
		return v.(string), nil
	}
	ra := readerAt(f)
	if ra == nil {
		return "", nil
	}
	h := fnv.New64a()
	if _, err := io.Copy(h, io.NewSectionReader(ra, 0, 1<<62)); err != nil {
		return "", err
	}
	tag := `"` + hex.EncodeToString(h.Sum(nil)) + `"`
	embedETags.Store(key, tag)
	return tag, nil
}
