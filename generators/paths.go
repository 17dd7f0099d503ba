package generators

import (
	"github.com/sbxfuzz/sbxfuzz/scenario"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// A pathTemplate spells a hostile path from b, a root base ("/work"; "" for
// the root "/"), and n, a name stored below roots ("data.txt"). The path
// classes are tables of them; pathOp puts the result in a read, a write, a
// fetch's URL path or a tool's input.
type pathTemplate func(src Source, b, n string) string

// pathOp draws a template of ts and an op to carry its path: mostly fs_read
// and fs_write (against the matching roots), sometimes the URL path of a
// fetch from a granted host (only the host is checked) or a tool's input.
func pathOp(src Source, sc *scenario.Scenario, ts []pathTemplate) core.Op {
	t, n := pick(src, ts), pick(src, fileNames)
	switch r := src.Intn(20); {
	case r < 12:
		return read(src, t(src, readBase(src, sc), n))
	case r < 17:
		return write(src, t(src, writeBase(src, sc), n), pick(src, writeData))
	case r < 19:
		return fetch(src, anyHost(src, sc), t(src, "", n))
	}
	return tool(src, anyTool(src, sc), t(src, readBase(src, sc), n))
}

// pickBase returns the base of one of roots, or dflt when there is none.
func pickBase(src Source, roots []string, dflt string) string {
	if len(roots) == 0 {
		return dflt
	}
	return rootBase(pick(src, roots))
}

// orWork is b, or "/work" for the root "/", whose siblings and spellings
// would otherwise be relative.
func orWork(b string) string {
	if b == "" {
		return "/work"
	}
	return b
}

var traversalPaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, b, "/../etc/passwd") },
	func(src Source, b, n string) string { return cat(src, b, "/sub/../", n) },
	func(src Source, b, _ string) string { return cat(src, b, "/..") },
	func(src Source, b, _ string) string { return cat(src, b, "/../") },
	func(src Source, b, _ string) string { return cat(src, b, `\..\etc\passwd`) },
	func(src Source, b, _ string) string { return cat(src, b, `/..\etc/passwd`) },
	func(_ Source, _, _ string) string { return "../etc/passwd" },
	func(_ Source, _, _ string) string { return ".." },
	func(src Source, b, _ string) string { return cat(src, b, "/a/b/c/../../../../etc/passwd") },
	func(src Source, b, n string) string { return cat(src, "/etc/..", b, "/", n) },
	func(src Source, b, _ string) string { b = orWork(b); return cat(src, b, "/..", b, "shop/secret") },
	func(src Source, b, n string) string { return cat(src, b, `\`, n, `\..\..\etc\passwd`) },
	func(src Source, b, n string) string { return cat(src, b, "/", n, "/..") },
	randomTraversal,
}

// traversalSegs are what randomTraversal strings together.
var traversalSegs = []string{"a", "sub", "..", ".", "etc", "passwd", "..hidden", ""}

// randomTraversal joins 2–8 segments with '/' or '\', one of them "..".
func randomTraversal(src Source, b, n string) string {
	k := 2 + src.Intn(7)
	at := src.Intn(k)
	var sb strings.Builder
	sb.Grow(len(b) + len(n) + 8*k)
	sb.WriteString(b)
	for i := 0; i < k; i++ {
		sb.WriteByte("/\\"[src.Intn(2)])
		switch {
		case i == at:
			sb.WriteString("..")
		case i == k-1:
			sb.WriteString(n)
		default:
			sb.WriteString(pick(src, traversalSegs))
		}
	}
	return sb.String()
}

var prefixSiblingPaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, orWork(b), "shop/secret") },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "shop") },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "2/secret") },
	func(src Source, b, _ string) string { return cat(src, orWork(b), ".bak/secret") },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "-old/secret") },
	func(_ Source, b, _ string) string { b = orWork(b); return b[:len(b)-1] },
	func(src Source, b, _ string) string { return cat(src, orWork(b), `\secret`) },
	func(src Source, b, n string) string { return cat(src, orWork(b), "_x/", n) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "shop/s/s/s") },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "2") },
	func(src Source, b, n string) string { return cat(src, orWork(b), ".", n) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), `\d/f`) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), `\d/new`) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), `\d`) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "2shop/secret") },
	// The root's name, then bytes a check may read as no part of it
	// (trailing dots and spaces, which Win32 trims from a segment; a
	// query or a fragment, which a URL parser cuts off), then a name:
	// siblings of the root a POSIX world keeps apart from it.
	func(src Source, b, n string) string { return cat(src, orWork(b), pick(src, trimmedEnds), "/", n) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), pick(src, urlEnds), "/secret") },
}

// trimmedEnds and urlEnds end the root's name in prefixSiblingPaths.
var (
	trimmedEnds = []string{".", " ", "..", ". ", " ."}
	urlEnds     = []string{"?", "#", "?x=1", "#top"}
)

var dotSegmentPaths = []pathTemplate{
	func(src Source, b, n string) string { return cat(src, b, "/./", n) },
	func(src Source, b, n string) string { return cat(src, "/", b, "//", n) },
	func(src Source, b, n string) string { return cat(src, b, "/", n, "/") },
	func(src Source, b, _ string) string { return cat(src, b, "/.") },
	func(src Source, b, _ string) string { return cat(src, b, "/./") },
	func(src Source, b, n string) string { return cat(src, "/.", b, "/", n) },
	func(src Source, b, n string) string { return cat(src, b, "/././", n) },
	func(_ Source, _, _ string) string { return "///etc/passwd" },
	func(_ Source, _, _ string) string { return "/." },
	func(src Source, b, _ string) string { return cat(src, b, "//") },
	func(src Source, b, _ string) string { return cat(src, b, "/./.") },
	func(src Source, b, n string) string { return cat(src, b, "/", n, "/.") },
	func(src Source, b, n string) string { return cat(src, b, "/.//./", n) },
	func(src Source, b, _ string) string { return cat(src, b, "/") }, // the root itself, with a slash
	func(src Source, b, _ string) string { return cat(src, orWork(b), "shop/./secret") },
}

var encodedPaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, b, "/%2e%2e/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%2E%2E/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/..%2fetc%2fpasswd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%2e%2e%2fetc%2fpasswd") },
	func(src Source, b, _ string) string { return cat(src, b, "/..%5cetc%5cpasswd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%252e%252e/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%c0%ae%c0%ae/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%2e%2e/x") },
	func(_ Source, _, _ string) string { return "%2fetc%2fpasswd" },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "%2f..%2fetc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/\xc0\xae\xc0\xae/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%2e%2e%2f%2e%2e%2fetc%2fpasswd") },
	func(src Source, b, _ string) string { return cat(src, b, "/.%2e/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/%u002e%u002e/etc/passwd") },
	func(src Source, b, n string) string { return cat(src, b, "/", n, "%00.txt") },
	// From outside every root back into one, the ".." spelled for a
	// sandbox that decodes twice (or once) before it checks and acts on
	// the path decoded once (or as asked): in a directory named "%2e%2e"
	// under /etc.
	func(src Source, b, n string) string { return cat(src, "/etc/%252e%252e", b, "/", n) },
	func(src Source, b, n string) string { return cat(src, "/etc/%2e%2e", b, "/", n) },
}

var lookalikePaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, b, "/\uff0e\uff0e/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/\u2024\u2024/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/\u2025/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "/\ufe52\ufe52/etc/passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "\u2215..\u2215etc\u2215passwd") },
	func(src Source, b, _ string) string { return cat(src, b, "\uff0f..\uff0fetc\uff0fpasswd") },
	func(src Source, b, _ string) string { return cat(src, b, "/data\uff0etxt") },
	func(src Source, b, _ string) string { return cat(src, homoglyph(orWork(b)), "/data.txt") },
	func(src Source, b, _ string) string { return cat(src, upperASCII(orWork(b)), "/data.txt") },
	func(src Source, b, _ string) string { return cat(src, b, "/\uff0e\uff0e/x") },
	func(src Source, b, _ string) string { return cat(src, b, "\u2044..\u2044etc\u2044passwd") },
	func(src Source, b, n string) string { return cat(src, b, "/", homoglyph(n)) },
	func(src Source, b, _ string) string { return cat(src, upperASCII(orWork(b)), "/secret") },
	func(src Source, b, _ string) string { return cat(src, upperASCII(orWork(b)), "/d/f") },
	func(src Source, b, _ string) string { return cat(src, upperASCII(orWork(b)), "/d/new") },
	func(src Source, b, _ string) string { return cat(src, titleASCII(orWork(b)), "/secret") },
	func(src Source, b, _ string) string { return cat(src, titleASCII(orWork(b)), "/d/f") },
	func(src Source, b, _ string) string { return cat(src, titleASCII(orWork(b)), "/d/new") },
	// The root's "." made another letter: a root matched as an unescaped
	// regular expression lets it in.
	func(src Source, b, _ string) string {
		if sw := dotSwapped(orWork(b)); sw != "" {
			return cat(src, sw, "/secret")
		}
		return cat(src, upperASCII(orWork(b)), "/secret")
	},
}

var outsidePaths = []pathTemplate{
	func(_ Source, _, _ string) string { return "/etc/passwd" },
	func(_ Source, _, _ string) string { return "/" },
	func(_ Source, _, _ string) string { return "/proc/self/environ" },
	func(_ Source, _, _ string) string { return "/root/.ssh/id_rsa" },
	func(_ Source, _, _ string) string { return "/etc/shadow" },
	func(_ Source, _, _ string) string { return "/tmp/x" },
	func(_ Source, _, _ string) string { return "/system/boot.cfg" },
	func(_ Source, _, _ string) string { return "/proc/self/mem" },
	func(_ Source, _, _ string) string { return "/var/run/secrets/kubernetes.io/serviceaccount/token" },
	func(_ Source, _, _ string) string { return "/home/user/.aws/credentials" },
	func(_ Source, _, _ string) string { return "/proc/1/root/etc/passwd" },
}

var relativePaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, strings.TrimPrefix(orWork(b), "/"), "/x") },
	func(_ Source, _, _ string) string { return "./x" },
	func(_ Source, _, _ string) string { return "x" },
	func(_ Source, _, _ string) string { return "" },
	func(_ Source, _, _ string) string { return "." },
	func(_ Source, _, _ string) string { return "./" },
	func(src Source, b, n string) string {
		return cat(src, "./", strings.TrimPrefix(orWork(b), "/"), "/", n)
	},
	func(_ Source, b, _ string) string { return strings.TrimPrefix(orWork(b), "/") },
	func(_ Source, _, _ string) string { return "~/x" },
	func(_ Source, _, _ string) string { return "=>" },
	func(_ Source, _, n string) string { return n },
	func(_ Source, _, _ string) string { return "etc/passwd" },
	func(src Source, b, n string) string {
		return cat(src, strings.TrimPrefix(orWork(b), "/"), "//", n, "/")
	},
}

// lineBreakPaths are a root's name with a line break after it, then a
// path, outside the root or under it: a path outside the root as a whole,
// each of whose lines a check whose ^ and $ match at line breaks (Ruby's
// anchors, a multi-line regular expression) may pass alone.
var lineBreakPaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, orWork(b), "\n/etc/passwd") },
	func(src Source, b, n string) string { return cat(src, orWork(b), "\n", b, "/", n) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "\n", orWork(b), "shop/secret") },
}

var longPaths = []pathTemplate{
	func(src Source, b, _ string) string { return cat(src, b, deep[:2*depth(src)], "/f.txt") },
	func(src Source, b, _ string) string {
		return cat(src, b, deep[:2*depth(src)], "/..", deep[:40], "/f.txt")
	},
	func(src Source, b, _ string) string { return cat(src, b, upDeep[:3*depth(src)], "/etc/passwd") },
	func(src Source, b, n string) string { return cat(src, b, dotDeep[:2*depth(src)], "/", n) },
	func(src Source, b, n string) string { k := depth(src); return cat(src, slashes[:k], b, slashes[:k], n) },
	func(src Source, b, _ string) string { return slashFill(src, b, 256+src.Intn(800)) },
	func(src Source, b, _ string) string { return cat(src, orWork(b), "shop", deep[:2*depth(src)]) },
	func(src Source, b, _ string) string {
		return cat(src, strings.TrimPrefix(orWork(b), "/"), deep[:2*depth(src)], "/x")
	},
	func(src Source, b, _ string) string { return slashFill(src, b, 4096+src.Intn(200)) },
	func(src Source, b, _ string) string { return cat(src, b, deep[:2*depth(src)], "/", fill[:300]) },
	// A ".." past the first kilobyte, or past four: a check that reads a
	// fixed buffer of the path misses it, and Clean climbs back into the
	// root with it.
	func(src Source, b, n string) string {
		return cat(src, slashFill(src, b, 1024+src.Intn(3200)), "/../", n)
	},
}

// maxSlashFill is the most fill slashFill serves from slashFills.
const maxSlashFill = 4096 + 200

// slashFills holds, for each base a root of this package's grants can have
// ("" for "/"), the base, a slash and maxSlashFill bytes of fill, so that
// slashFill serves its long paths as prefixes: a path of four kilobytes
// costs nothing.
var slashFills = func() map[string]string {
	m := map[string]string{"": "/" + fill[:maxSlashFill]}
	for _, infos := range [][]rootInfo{readInfos, subInfos, outInfos, {tmpOut, dataCache}} {
		for _, ri := range infos {
			m[ri.base] = ri.base + "/" + fill[:maxSlashFill]
		}
	}
	return m
}()

// slashFill returns b + "/" + fill[:n].
func slashFill(src Source, b string, n int) string {
	if s, ok := slashFills[b]; ok && n <= maxSlashFill {
		return s[:len(b)+1+n]
	}
	return cat(src, b, "/", fill[:n])
}

// depth is how deep a long path goes: 20 to 255 levels.
func depth(src Source) int { return 20 + src.Intn(236) }

// dotSwapped is b with the last "." of its last name made an "X"
// ("/opt/tool.d" as "/opt/toolXd"), or "" when that name has none.
func dotSwapped(b string) string {
	i := strings.LastIndexByte(b, '.')
	if i < 0 || strings.LastIndexByte(b, '/') > i {
		return ""
	}
	return b[:i] + "X" + b[i+1:]
}
