package spec_test

import (
	"path"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Every expectation below is worked out by hand from SPEC §4 (and the path
// examples of SPEC §9), not copied from the code's output.

func TestHasTraversal(t *testing.T) {
	tests := []struct {
		p      string
		want   bool
		reason string
	}{
		{"/work/../etc/shadow", true, "the SPEC §10 trace: a '..' segment in the middle"},
		{"..", true, "the whole path is one '..' segment"},
		{"../x", true, "a leading '..' segment"},
		{"/work/..", true, "a trailing '..' segment"},
		{"/work/../", true, "a '..' segment followed by an empty one"},
		{"/work//../x", true, "empty segments around do not hide '..'"},
		{"/work/x/../../etc/passwd", true, "several '..' segments"},
		{`\work\..\etc`, true, `'\' is a separator too (SPEC §4)`},
		{`/work\..\etc`, true, `mixed '/' and '\' separators`},
		{`/work/..\x`, true, `'..' ended by '\'`},
		{`..\`, true, `'..' then a trailing '\'`},
		{"/work/..hidden", false, "SPEC §4: a name that begins with two dots is not traversal"},
		{"/work/hidden..", false, "a name that ends with two dots is not traversal"},
		{"/work/te..st", false, "two dots inside a name are not traversal"},
		{"/work/...", false, "three dots are not exactly '..'"},
		{"/work/....", false, "four dots are not exactly '..'"},
		{"/work/.", false, "one dot is not '..'"},
		{"/work/./x", false, "a '.' segment is not '..'"},
		{"/work/. ./x", false, "'. .' is not '..'"},
		{"/work/.. /x", false, "'.. ' (trailing space) is not exactly '..'"},
		{" ../x", false, "' ..' (leading space) is not exactly '..'"},
		{"/work/..\x00", false, "'..' followed by NUL is a different segment"},
		{"/work/%2e%2e/etc", false, "percent-encodings are literal bytes, never decoded (SPEC §4)"},
		{"/work/..%2fetc", false, "'..%2f' is one literal segment, not '..'"},
		{"/work/%2e%2e%2fetc", false, "an encoded slash is not a separator"},
		{"/work/%252e%252e/etc", false, "double-encoded dots are literal too"},
		{"/work/\uff0e\uff0e/etc", false, "fullwidth dots U+FF0E are not '.' (SPEC §4)"},
		{"/work/\u2024\u2024/etc", false, "one-dot leaders U+2024 are not '.'"},
		{"/work/\u2025/etc", false, "the two-dot leader U+2025 is one rune, not '..'"},
		{"", false, "the empty path has no '..' segment"},
		{"/", false, "the root has no '..' segment"},
		{".", false, "'.' alone is not traversal"},
		{"work/x", false, "a relative path without '..'"},
	}
	for _, tt := range tests {
		if got := spec.HasTraversal(tt.p); got != tt.want {
			t.Errorf("HasTraversal(%q) = %v, want %v: %s", tt.p, got, tt.want, tt.reason)
		}
	}
}

func TestUnderAllowlist(t *testing.T) {
	work := []string{"/work/"}
	tests := []struct {
		p      string
		roots  []string
		want   bool
		reason string
	}{
		{"/work/data.txt", work, true, "a file directly below the root"},
		{"/work/a/b/c", work, true, "a deep file below the root"},
		{"/work", work, true, "Clean(root) itself: c == r"},
		{"/work/", work, true, "trailing slash: Clean gives /work == r"},
		{"/work/.", work, true, "Clean(/work/.) is /work == r"},
		{"/work/./x", work, true, "Clean removes '.' segments: /work/x"},
		{"//work//x", work, true, "Clean collapses repeated slashes: /work/x"},
		{"/work/x/", work, true, "trailing slash on a file: /work/x"},
		{"/work/x/..", work, true, "Clean(/work/x/..) is /work (traversal is HasTraversal's job)"},
		{"/work/..hidden", work, true, "/work/..hidden starts with /work/"},
		{"/work/te..st", work, true, "dots inside a name are ordinary bytes"},
		{"/workshop/x", work, false, "SPEC §4: /workshop/x is not under /work/ (boundary)"},
		{"/work2", work, false, "prefix sibling /work2"},
		{"/work.bak", work, false, "prefix sibling /work.bak"},
		{"/work.bak/x", work, false, "below a prefix sibling"},
		{"/wor", work, false, "a prefix of the root is not under it"},
		{"/work2", []string{"/work"}, false, "root given without a slash: the boundary is still added"},
		{"/work/x", []string{"/work"}, true, "root given without a slash"},
		{"/work/../etc/passwd", work, false, "Clean gives /etc/passwd, outside /work"},
		{"/work/x/../../etc", work, false, "Clean gives /etc"},
		{"/etc/passwd", work, false, "outside absolute"},
		{"/", work, false, "the root directory is not under /work/"},
		{"/proc/self/environ", work, false, "outside absolute"},
		{"work/x", work, false, "relative: Clean keeps it relative, no leading slash"},
		{"./work/x", work, false, "relative: Clean gives work/x"},
		{"./x", work, false, "relative: Clean gives x"},
		{"", work, false, "empty: Clean gives '.'"},
		{`\work\x`, work, false, `'\' is not a separator for Clean: a relative name`},
		{`/work\x`, work, false, `/work\x starts with "/work\", not "/work/"`},
		{`/work/\..\etc`, work, true, `Clean does not interpret '\': /work/\..\etc stays below /work/`},
		{"/work/%2e%2e/etc", work, true, "percent-encodings are literal: a name below /work/"},
		{"/work/%2e%2e%2fetc", work, true, "an encoded slash is a literal byte"},
		{"/work/\uff0e\uff0e/etc", work, true, "fullwidth dots are literal: a name below /work/"},
		{"/work/\u2024\u2024/etc", work, true, "one-dot leaders are literal: a name below /work/"},
		{"/etc/passwd", []string{"/"}, true, "root '/': every absolute path is under it"},
		{"/", []string{"/"}, true, "root '/' itself"},
		{"work/x", []string{"/"}, false, "root '/': a relative path is not under it"},
		{"", []string{"/"}, false, "root '/': '.' is not under it"},
		{"/work/out/r.txt", []string{"/work/out/"}, true, "below a nested root"},
		{"/work/r.txt", []string{"/work/out/"}, false, "above a nested root"},
		{"/work/outside", []string{"/work/out/"}, false, "prefix sibling of a nested root"},
		{"/work/x", []string{"/work//"}, true, "roots are cleaned too: /work// is /work"},
		{"/work/x", []string{"/work/./"}, true, "roots are cleaned too: /work/./ is /work"},
		{"/work2/x", []string{"/work/./"}, false, "a cleaned root keeps its boundary"},
		{"/tmp/x", []string{"/work/", "/tmp/"}, true, "any root may match"},
		{"/var/x", []string{"/work/", "/tmp/"}, false, "no root matches"},
		{"/work/x", nil, false, "no roots: nothing is under them"},
		{"", []string{""}, true, "the formula applied literally: Clean(\"\") == Clean(\"\") (NewGrant rejects such roots)"},
	}
	for _, tt := range tests {
		if got := spec.UnderAllowlist(tt.p, tt.roots); got != tt.want {
			t.Errorf("UnderAllowlist(%q, %q) = %v, want %v: %s", tt.p, tt.roots, got, tt.want, tt.reason)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		p, want string
		reason  string
	}{
		{"/work/x", "/work/x", "already canonical"},
		{"/work/./x", "/work/x", "'.' segments go"},
		{"//work//x", "/work/x", "repeated slashes collapse"},
		{"/work/x/", "/work/x", "a trailing slash goes"},
		{"/work/", "/work", "a trailing slash goes from a directory too"},
		{"/work/.", "/work", "a trailing '.' goes"},
		{"/work/x/..", "/work", "'..' eats the segment before it"},
		{"/work/../etc/shadow", "/etc/shadow", "the traversal the belt catches before Clean erases it"},
		{"/../../etc", "/etc", "'..' at the root stays at the root"},
		{"/..", "/", "'..' of the root is the root"},
		{"/", "/", "the root"},
		{"///", "/", "only slashes: the root"},
		{"", ".", "the empty path is '.'"},
		{".", ".", "'.' stays"},
		{"./x", "x", "relative: './' goes"},
		{"work/x", "work/x", "relative stays relative"},
		{"..", "..", "a relative '..' cannot be eaten"},
		{"../x", "../x", "a relative leading '..' stays"},
		{"/work/..hidden", "/work/..hidden", "'..hidden' is a name"},
		{"/work/te..st", "/work/te..st", "'te..st' is a name"},
		{"/work/...", "/work/...", "'...' is a name"},
		{`\work\..\etc`, `\work\..\etc`, `'\' is an ordinary byte for Clean`},
		{"/work/%2e%2e/etc", "/work/%2e%2e/etc", "percent-encodings are never decoded"},
		{"/work/\uff0e\uff0e/etc", "/work/\uff0e\uff0e/etc", "fullwidth dots are never folded"},
		{"/work/\u2024\u2024/etc", "/work/\u2024\u2024/etc", "one-dot leaders are never folded"},
	}
	for _, tt := range tests {
		if got := spec.Canonical(tt.p); got != tt.want {
			t.Errorf("Canonical(%q) = %q, want %q: %s", tt.p, got, tt.want, tt.reason)
		}
	}
}

// TestCanonicalIsPathClean compares Canonical with path.Clean on every
// string of up to seven bytes over '/', '.' and 'a': every way a slash, a
// dot element and a name can sit next to each other, the shortcut for
// paths that are clean already included.
func TestCanonicalIsPathClean(t *testing.T) {
	var walk func(p string)
	walk = func(p string) {
		if got, want := spec.Canonical(p), path.Clean(p); got != want {
			t.Errorf("Canonical(%q) = %q, want %q (path.Clean)", p, got, want)
		}
		if len(p) == 7 {
			return
		}
		for _, c := range "/.a" {
			walk(p + string(c))
		}
	}
	walk("")
}
