package textscan

import "unsafe"

// Hash mixes the bytes of s into h, a word at a time: the hash of core's
// world tables and of its fingerprint. From 32 bytes on it keeps four
// lanes, each mixing every fourth word, and mixes them together at the
// end: one lane's chain of multiplies, a word after a word, took longer
// than reading the words, and hostile ops carry paths and file contents of
// kilobytes (BenchmarkHash compares it with one lane). Below 32 bytes it
// is the one-lane hash. A table index takes the low bits of
// Spread(Hash(...)), not of Hash: the last mix leaves the top bytes of the
// last word in the high bits only. Hash is not generic, so that it is
// compiled here, in a package the libFuzzer build leaves plain: a generic
// function is compiled in the package that calls it.
func Hash(h uint64, s string) uint64 {
	h = mix(h, uint64(len(s)))
	if len(s) >= 32 {
		h0, h1, h2, h3 := h, h^0x2545f4914f6cdd1d, h^0xff51afd7ed558ccd, h^0xc4ceb9fe1a85ec53
		for ; len(s) >= 32; s = s[32:] {
			h0 = mix(h0, word(s))
			h1 = mix(h1, word(s[8:]))
			h2 = mix(h2, word(s[16:]))
			h3 = mix(h3, word(s[24:]))
		}
		h = mix(mix(mix(h0, h1), h2), h3)
	}
	for ; len(s) >= 8; s = s[8:] {
		h = mix(h, word(s))
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	return mix(h, tail)
}

// HashBytes is Hash of the bytes of b, without copying them to a string
// (Hash keeps nothing of its argument).
func HashBytes(h uint64, b []byte) uint64 {
	return Hash(h, unsafe.String(unsafe.SliceData(b), len(b)))
}

// word returns the first eight bytes of s as a little-endian word; the
// compiler makes one load of it, and in a loop that reslices s, fewer
// bounds checks than load's binary.LittleEndian (which costs less of a
// caller's inlining budget, so the other scans keep it).
func word(s string) uint64 {
	s = s[:8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// mix mixes v into h: a multiply, then the high bits folded down.
func mix(h, v uint64) uint64 {
	h = (h ^ v) * 0x9e3779b97f4a7c15
	return h ^ h>>31
}

// Spread is murmur3's 64-bit finalizer: each bit of h flips each bit of
// the result about half the time, so the low bits of Spread(Hash(s)) —
// what a table index keeps — depend on every byte of s. Without it, the
// top bytes of a last word seven bytes long reach no low bit: 65,536 keys
// of 15 bytes that differ only in their last two shared 128 slots of a
// table of 65,536 (core's TestHashKeySpreads). A fingerprint, which keeps
// all 64 bits, needs no Spread.
func Spread(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}
