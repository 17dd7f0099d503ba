package mcp

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Paths maps world paths into the materialized tree; realfs.Tree is one.
// The driver needs nothing else of the tree.
type Paths interface {
	// Path is the tree path of an absolute world path, verbatim (no
	// cleaning: ".." and links are the sandbox's to resolve); false for
	// a relative one.
	Path(p string) (string, bool)
	// Root is the tree's own directory, cut out of what the server
	// returns.
	Root() string
	// ReadFile is the content of the file at world path p, for the
	// harness's second look at a read's answer, within the tree whatever
	// the sandbox linked or swapped in since, and at most max bytes
	// (realfs.Tree.ReadFile).
	ReadFile(p string, max int64) ([]byte, error)
}

// NewDriver returns the realfs.Driver that performs ops through s's tools
// on the tree paths maps into. Its Close leaves s running: s belongs to
// the Pool (or whoever started it), which reuses it for the next tree.
func NewDriver(s *Server, paths Paths) realfs.Driver { return &driver{s, paths} }

type driver struct {
	s     *Server
	paths Paths
}

// Do implements realfs.Driver: an op the profile cannot express is
// Unsupported, a failed call of a tool (isError, a JSON-RPC error, or a
// text the profile calls a refusal) is Denied or NotFound by its words,
// and a failure of the server is the error. The tree's root is cut out of
// what comes back: a server that echoes absolute paths then names world
// paths, alike on every tree.
func (d *driver) Do(op core.Op) (realfs.Outcome, error) {
	p := d.s.Profile()
	tool, args, path, sent, why := d.request(p, op)
	if why != "" {
		return realfs.Outcome{Verdict: realfs.Unsupported, Detail: why}, nil
	}
	r, err := d.s.CallTool(tool, args)
	if err != nil {
		return realfs.Outcome{}, err
	}
	root := d.paths.Root()
	if r.IsError || p.refused(r.Text) {
		hide := append([]string{path, filepath.Clean(path)}, d.s.cfg.Allowed...)
		text := r.Text
		if sent != path {
			text = cutWord(text, sent)
		}
		return realfs.Outcome{Verdict: p.verdict(text, hide), Detail: d.cut(r.Text, root), Carried: d.cut(r.Carried, root)}, nil
	}
	if op.Kind == core.OpRead {
		data, ok := p.Read.Result.content(r.Text)
		numbered := false
		reread := sync.OnceValues(func() ([]byte, error) { return d.paths.ReadFile(op.Args[0], realfs.MaxHashed) })
		switch x := p.Read.Result; {
		case x != nil && x.describes(r.Text):
			data, ok = fileOr(r.Text, reread), true
		case x != nil && (x.Lines || x.LineMax > 0 || x.Tab != ""):
			data = asFile(data, reread, x)
		}
		if x := p.Read.Result; x == nil || x.LinePrefix == "" {
			numbered = numberedFile(data, reread)
		}
		return realfs.Outcome{Verdict: realfs.Allowed, Data: d.cut(data, root), Whole: !ok, Numbered: numbered, Carried: d.cut(r.Carried, root)}, nil
	}
	return realfs.Outcome{Verdict: realfs.Allowed, Detail: d.cut(r.Text, root), Carried: d.cut(r.Carried, root)}, nil
}

// cut is text with the server's HOME written $HOME, then the tree's
// root cut out (withoutRoot): a server that names a file of its HOME
// (Letta's notice of where it put a long answer) then says the same in
// the run and its replay, each with a HOME of its own.
func (d *driver) cut(text, root string) string {
	if h := d.s.home; h != "" {
		text = strings.ReplaceAll(text, h, "$HOME")
	}
	return withoutRoot(text, root)
}

// cutWord is text with each occurrence of p that stands as a word of its
// own cut out: a relative path the server echoes ("from relative path
// 'ENOENT'"), which may be as short as "e", is not cut out of the words
// around it ("File not found").
func cutWord(text, p string) string {
	if p == "" {
		return text
	}
	inPath := func(s string, i int) bool {
		if i < 0 || i >= len(s) {
			return false
		}
		c := s[i]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-/~", c) >= 0 || c >= 0x80
	}
	var b strings.Builder
	for {
		i := strings.Index(text, p)
		if i < 0 {
			return b.String() + text
		}
		end := i + len(p)
		if inPath(text, i-1) || inPath(text, end) {
			b.WriteString(text[:end])
		} else {
			b.WriteString(text[:i])
		}
		text = text[end:]
	}
}

// lineNumber is a line number before a line as file tools write them:
// cat -n's right-aligned number and tab, or a number and an arrow, a bar,
// a colon or spaces.
var lineNumber = regexp.MustCompile(`^ *\d+(?:\t|→|\| ?|: ?| {1,2})`)

// numberedFile reports whether data, which the server returned for the
// file reread reads again, is that file's content with a line number
// before each of its lines, and not the file itself.
func numberedFile(data string, reread func() ([]byte, error)) bool {
	if !lineNumber.MatchString(data) {
		return false // most answers: the file is not read again
	}
	file, err := reread()
	if err != nil || len(file) == 0 || data == string(file) {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for i, l := range lines {
		n := lineNumber.FindString(l)
		if n == "" {
			return false
		}
		lines[i] = l[len(n):]
	}
	cut := strings.Join(lines, "\n")
	return cut == strings.TrimSuffix(string(file), "\n")
}

// asFile is data, which a server that reads by lines (Extract.Lines),
// cuts long lines (Extract.LineMax) or shows tabs as other text
// (Extract.Tab) returned for the file reread reads again, replaced with
// the file's bytes when the two differ only as x says the server makes
// them differ.
func asFile(data string, reread func() ([]byte, error), x *Extract) string {
	file, err := reread()
	if err != nil {
		return data
	}
	f := string(file)
	for _, cut := range []func(string, int) string{cutBytes, cutUnits} {
		want := f
		if x.Tab != "" {
			want = strings.ReplaceAll(want, "\t", x.Tab)
		}
		if x.LineMax > 0 {
			want = cutLines(f, x.LineMax, cmp.Or(x.LineMark, "..."), cut)
		}
		if data == want || x.Lines && (lineEnds(data) == lineEnds(want) || lineEnds(data) == byLines(want)) {
			return f
		}
	}
	return data
}

// cutLines is s with each line longer than most cut by cut to its first
// most and mark.
func cutLines(s string, most int, mark string, cut func(line string, most int) string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body, end := strings.CutSuffix(l, "\n")
		if c := cut(body, most); c != body {
			lines[i] = c + mark
			if end {
				lines[i] += "\n"
			}
		}
	}
	return strings.Join(lines, "")
}

// cutBytes is line's first most bytes, as a Go server cuts them, or line
// when it is no longer; each byte of a character cut in two reads as
// U+FFFD, as Go's JSON encoder sends it.
func cutBytes(line string, most int) string {
	if len(line) <= most {
		return line
	}
	var b strings.Builder
	for s := line[:most]; s != ""; {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// cutUnits is line's first most UTF-16 units, as JavaScript's slice
// counts, or line when it is no longer.
func cutUnits(line string, most int) string {
	n := 0
	for i, r := range line {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if n+w > most {
			return line[:i]
		}
		n += w
	}
	return line
}

// fileOr is the bytes of the file reread reads again, or text when it
// cannot be read.
func fileOr(text string, reread func() ([]byte, error)) string {
	file, err := reread()
	if err != nil {
		return text
	}
	return string(file)
}

// lineEnds is s with "\r\n" and a lone "\r" read as "\n".
func lineEnds(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// byLines is s as a server that reads line by line returns it: its line
// ends read as "\n", the final newline dropped (the lines joined by
// "\n": "a\n\n" is the lines "a" and "", "a\n").
func byLines(s string) string { return strings.TrimSuffix(lineEnds(s), "\n") }

// Close implements realfs.Driver; the server stays with its owner.
func (d *driver) Close() error { return nil }

// request is the tool call for op, or why there is none, with the op's
// path in the tree and as it is sent (relative to the server's directory
// when it works on its working directory). MCP carries paths and file
// contents as JSON strings, so bytes that are not UTF-8 cannot cross
// intact, and a NUL cannot be in a path on disk.
func (d *driver) request(p Profile, op core.Op) (tool string, args map[string]any, path, sent, why string) {
	no := func(why string) (string, map[string]any, string, string, string) { return "", nil, "", "", why }
	if !p.Supports(op.Kind) {
		return no("profile " + p.Name + " has no tool for " + op.Kind)
	}
	if n, _ := spec.Arity(op.Kind); len(op.Args) != n {
		return no(op.Kind + " with a wrong number of arguments")
	}
	w := op.Args[0]
	switch {
	case !utf8.ValidString(w):
		return no("a path that is not UTF-8")
	case strings.IndexByte(w, 0) >= 0:
		return no("a path with a NUL byte")
	}
	path, ok := d.paths.Path(w)
	if !ok {
		return no("a relative path")
	}
	sent = path
	switch {
	case p.Cwd:
		sent = relative(filepath.ToSlash(d.s.cfg.Allowed[0]), filepath.ToSlash(path))
	case p.VirtualRoot && len(d.s.cfg.Allowed) > 0:
		sent = "/" + relative(filepath.ToSlash(d.s.cfg.Allowed[0]), filepath.ToSlash(path))
		if sent == "/." {
			sent = "/" // the directory itself
		}
	}
	t, data := p.Read, ""
	if op.Kind == core.OpWrite {
		if !utf8.ValidString(op.Args[1]) {
			return no("data that is not UTF-8")
		}
		t, data = p.Write, op.Args[1]
	}
	args, err := t.arguments(sent, data)
	if err != nil { // check refused such a profile
		return no("profile " + p.Name + ": " + err.Error())
	}
	if len(d.s.cfg.Allowed) > 0 {
		withRoot(args, d.s.cfg.Allowed[0])
	}
	return t.Name, args, path, sent, ""
}

// RootArg is the constant argument a profile writes for the server's
// first allowed directory, as a path on disk: a tool that takes its root,
// or a working directory, in every call.
const RootArg = "{{root}}"

// withRoot returns v (an arguments object, or what it holds) with every
// string that is RootArg replaced by root, objects and lists in place.
func withRoot(v any, root string) any {
	switch v := v.(type) {
	case string:
		if v == RootArg {
			return root
		}
	case map[string]any:
		for k, e := range v {
			v[k] = withRoot(e, root)
		}
	case []any:
		for i, e := range v {
			v[i] = withRoot(e, root)
		}
	}
	return v
}

// relative is the absolute path p spelled from the directory base, for a
// server that works on its working directory: what follows base in p, as
// p writes it, else a ".." for each level up from base to the deepest
// directory that holds p, then the rest of p ("../appshop/x" for
// /srv/appshop/x from /srv/app). The empty and "." segments among those
// that name base's directories are passed over ("//srv/./app/x" is "x"
// from /srv/app), as the server resolving p would pass over them: a ".."
// the op did not spell would be refused by a guard that refuses every
// path climbing out of its directory, and judged stricter for the
// harness's doing. The rest is p's own spelling, the server's to resolve.
// A base it cannot climb (another volume) leaves p as it is.
func relative(base, p string) string {
	dirs := strings.FieldsFunc(base, func(r rune) bool { return r == '/' })
	at, matched := 0, 0 // p[at:] follows the segments of p that named dirs[:matched]
	for matched < len(dirs) {
		from := at
		for from < len(p) && p[from] == '/' {
			from++
		}
		seg, _, _ := strings.Cut(p[from:], "/")
		if seg != "." && seg != dirs[matched] {
			break
		}
		if seg == dirs[matched] {
			matched++
		}
		at = from + len(seg)
	}
	if matched == 0 && !strings.HasPrefix(base, "/") {
		return p
	}
	parts := slices.Repeat([]string{".."}, len(dirs)-matched)
	if rest := strings.TrimLeft(p[at:], "/"); rest != "" {
		parts = append(parts, rest)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}
