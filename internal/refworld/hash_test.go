package refworld

import (
	"hash/fnv"
	"strings"
	"testing"
)

// TestFileHashSeparatesKeyAndData: moving bytes between the key and the
// data, or changing any byte of either, changes the hash.
func TestFileHashSeparatesKeyAndData(t *testing.T) {
	pairs := [][2]string{{"/a", "bc"}, {"/ab", "c"}, {"/abc", ""}, {"/a", "bd"}, {"/b", "bc"}, {"/a", "bc\x00"},
		{"/work/f", strings.Repeat("x", 1000)}, {"/work/f", strings.Repeat("x", 999) + "y"}, {"/work/f", strings.Repeat("x", 1001)}}
	seen := map[uint64][2]string{}
	for _, p := range pairs {
		h := fileHash(p[0], p[1])
		if q, ok := seen[h]; ok {
			t.Errorf("fileHash(%q, %.20q) = fileHash(%q, %.20q)", p[0], p[1], q[0], q[1])
		}
		seen[h] = p
	}
}

// BenchmarkFileHash hashes a file of 7 MB, as a flooding sandbox writes,
// with fileHash (hash/maphash) and with hash/fnv, which reads a byte a
// step.
func BenchmarkFileHash(b *testing.B) {
	data := strings.Repeat("x", 7<<20)
	b.Run("fileHash", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			fileHash("/work/f", data)
		}
	})
	b.Run("fnv", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			h := fnv.New64a()
			h.Write([]byte("/work/f"))
			h.Write([]byte(data))
			h.Sum64()
		}
	})
}
