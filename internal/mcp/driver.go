package mcp

import (
	"os"
	"path/filepath"
	"strings"
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
	tool, args, path, why := d.request(p, op)
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
		return realfs.Outcome{Verdict: p.verdict(r.Text, hide), Detail: withoutRoot(r.Text, root)}, nil
	}
	if op.Kind == core.OpRead {
		data, ok := p.Read.Result.content(r.Text)
		switch x := p.Read.Result; {
		case x != nil && x.describes(r.Text):
			data, ok = fileOr(r.Text, path), true
		case x != nil && x.Lines:
			data = asFile(data, path)
		}
		return realfs.Outcome{Verdict: realfs.Allowed, Data: withoutRoot(data, root), Whole: !ok}, nil
	}
	return realfs.Outcome{Verdict: realfs.Allowed, Detail: withoutRoot(r.Text, root)}, nil
}

// asFile is data, which a server that reads by lines (Extract.Lines)
// returned for the file at tree path p, replaced with the file's bytes when
// the two differ only as reading by lines makes them differ.
func asFile(data, p string) string {
	file, err := os.ReadFile(p)
	if err != nil || byLines(string(file)) != byLines(data) {
		return data
	}
	return string(file)
}

// fileOr is the bytes of the file at tree path p, or text when it cannot
// be read.
func fileOr(text, p string) string {
	file, err := os.ReadFile(p)
	if err != nil {
		return text
	}
	return string(file)
}

// byLines is s as a server that reads line by line returns it: "\r\n"
// read as "\n", a final newline dropped.
func byLines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSuffix(s, "\n")
}

// Close implements realfs.Driver; the server stays with its owner.
func (d *driver) Close() error { return nil }

// request is the tool call for op, or why there is none. MCP carries
// paths and file contents as JSON strings, so bytes that are not UTF-8
// cannot cross intact, and a NUL cannot be in a path on disk.
func (d *driver) request(p Profile, op core.Op) (tool string, args map[string]any, path, why string) {
	if !p.Supports(op.Kind) {
		return "", nil, "", "profile " + p.Name + " has no tool for " + op.Kind
	}
	if n, _ := spec.Arity(op.Kind); len(op.Args) != n {
		return "", nil, "", op.Kind + " with a wrong number of arguments"
	}
	w := op.Args[0]
	switch {
	case !utf8.ValidString(w):
		return "", nil, "", "a path that is not UTF-8"
	case strings.IndexByte(w, 0) >= 0:
		return "", nil, "", "a path with a NUL byte"
	}
	path, ok := d.paths.Path(w)
	if !ok {
		return "", nil, "", "a relative path"
	}
	t, data := p.Read, ""
	if op.Kind == core.OpWrite {
		if !utf8.ValidString(op.Args[1]) {
			return "", nil, "", "data that is not UTF-8"
		}
		t, data = p.Write, op.Args[1]
	}
	args, err := t.arguments(path, data)
	if err != nil { // check refused such a profile
		return "", nil, "", "profile " + p.Name + ": " + err.Error()
	}
	return t.Name, args, path, ""
}
