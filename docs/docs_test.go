// Package docs holds sbxfuzz's documentation (README.md at the root, the
// pages of this directory, and the contract, SPEC.md) and the tests that
// keep it true. "SPEC §N" anywhere in the repository means section N of
// docs/SPEC.md.
//
// The tests:
//
//   - every "§N" in a .go, .md or shell file names a section SPEC.md has;
//   - README.md is at most 250 lines;
//   - every relative link of README.md and docs/*.md reaches a file, and
//     an anchor reaches a heading of it;
//   - every fenced block tagged file=PATH is that file, and every other
//     ```sbx block replays on the reference with its expectations met;
//   - every ```console block runs and prints what it claims (below);
//   - every test the table of reliability.md names is a test function of
//     the package directory named before it.
//
// # Console blocks
//
// A fenced block whose info string is "console" is a transcript. A line
// that starts with "$ " is a command, run with sh -c from the repository
// root (a line ending in "\" continues on the next); the lines after it, up
// to the next command or the end of the block, are its output, stdout and
// stderr together, as a terminal shows them. In an expected line, "..."
// stands for any text, and a line that is only "..." for any number of
// lines. A command that must exit with a status other than 0 ends with the
// comment "# exit N". Each command runs in a fresh shell: nothing carries
// over from one to the next.
//
// "sbxfuzz" is a binary the test builds once from this checkout and puts
// first on PATH; "go run ./cmd/sbxfuzz" works too. HOME, the user cache
// directory and TMPDIR point into a temporary directory, so what a command
// writes by default lands there, and the Go caches are passed on so that
// "go run" builds nothing new. The checkout must be the same after a
// command as before it (git status --porcelain, when git is there).
//
// Blocks marked ```sh are shown, never run: commands that take long, need
// the network, npm or clang, or print figures that depend on the machine.
package docs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// root is the repository root, the directory every command runs in.
const root = ".."

// commandTimeout bounds one console command. Commands in console blocks
// take under 10 s on an idle machine; this is far past that, so that a
// loaded machine never fails them, and only a hang does.
const commandTimeout = 3 * time.Minute

// maxOutput bounds what one command may print before it is stopped.
const maxOutput = 4 << 20

// docFiles are the Markdown files whose blocks and links are checked:
// README.md and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md")
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rel names a path by its place in the repository, for messages.
func rel(path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// ---- SPEC references ----

var (
	specHeading = regexp.MustCompile(`(?m)^#{2,6} (\d+(?:\.\d+)*)\.? `)
	// sectionRef is a section reference: §N or §N.M, and the end of a
	// range written §N–M or §N-M.
	sectionRef = regexp.MustCompile(`§ ?(\d+(?:\.\d+)?)(?:[–-](\d+(?:\.\d+)?)\b)?`)
)

// specSections returns the section numbers docs/SPEC.md has headings for.
func specSections(spec string) map[string]bool {
	sections := map[string]bool{}
	for _, m := range specHeading.FindAllStringSubmatch(spec, -1) {
		sections[m[1]] = true
	}
	return sections
}

// unresolvedRefs returns, for each line of text that cites a section
// missing from sections, "line N: §X".
func unresolvedRefs(text string, sections map[string]bool) []string {
	var bad []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range sectionRef.FindAllStringSubmatch(line, -1) {
			for _, n := range m[1:] {
				if n != "" && !sections[n] {
					bad = append(bad, fmt.Sprintf("line %d: §%s", i+1, n))
				}
			}
		}
	}
	return bad
}

// citesSpec reports whether path is a file whose "§N" cite the SPEC: Go,
// Markdown and shell files (by extension, or by a #! line naming sh or
// bash).
func citesSpec(path string, content []byte) bool {
	switch filepath.Ext(path) {
	case ".go", ".md", ".sh":
		return true
	case "":
		first, _, _ := bytes.Cut(content, []byte("\n"))
		return bytes.HasPrefix(first, []byte("#!")) && bytes.Contains(first, []byte("sh"))
	}
	return false
}

// TestSpecReferencesResolve: every §N in the repository's Go, Markdown and
// shell files is a section of docs/SPEC.md.
func TestSpecReferencesResolve(t *testing.T) {
	sections := specSections(readFile(t, filepath.Join(root, "docs", "SPEC.md")))
	for i := 1; i <= 14; i++ {
		if !sections[strconv.Itoa(i)] {
			t.Errorf("docs/SPEC.md has no heading for section %d", i)
		}
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !citesSpec(path, content) {
			return nil
		}
		files++
		for _, b := range unresolvedRefs(string(content), sections) {
			t.Errorf("%s: %s: docs/SPEC.md has no such section", rel(path), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("scanned %d files: the walk missed the repository", files)
	}
}

func TestUnresolvedRefs(t *testing.T) {
	sections := map[string]bool{"1": true, "4": true, "7": true, "13": true}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"SPEC \u00a74 and \u00a713", nil},
		{"SPEC \u00a71–7, \u00a74-7", nil},
		{"SPEC \u00a715", []string{"line 1: \u00a715"}},
		{"ok\nSPEC \u00a74.2", []string{"line 2: \u00a74.2"}},
		{"\u00a71–9", []string{"line 1: \u00a79"}},
		{"\u00a7 3", []string{"line 1: \u00a73"}},
	} {
		if got := unresolvedRefs(tc.text, sections); !slices.Equal(got, tc.want) {
			t.Errorf("unresolvedRefs(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// ---- README length ----

// TestReadmeLength: the README stays a front page; reference goes in docs/.
func TestReadmeLength(t *testing.T) {
	const most = 250
	if n := strings.Count(readFile(t, filepath.Join(root, "README.md")), "\n"); n > most {
		t.Errorf("README.md has %d lines, more than %d: move reference into docs/", n, most)
	}
}

// ---- links ----

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(md string) map[string]bool {
	a := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(stripFences(md), -1) {
		a[slug(m[1])] = true
	}
	return a
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped
// but for "-" and "_", spaces made "-".
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && !strings.ContainsRune("§×—–→…’", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// stripFences drops fenced code blocks, whose lines are neither links nor
// headings.
func stripFences(md string) string {
	var out []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// TestLinksResolve: every relative link of the README and docs/*.md names
// a file of the repository, and its #anchor a heading of that file.
func TestLinksResolve(t *testing.T) {
	for _, file := range docFiles(t) {
		md := readFile(t, file)
		for _, m := range mdLink.FindAllStringSubmatch(stripFences(md), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %s: %v", rel(file), target, err)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(dest, ".md") && !anchors(readFile(t, dest))[anchor] {
				t.Errorf("%s: link %s: %s has no heading with that anchor", rel(file), target, rel(dest))
			}
		}
	}
}

// ---- the reliability table ----

// testRef is a test a row of a table names: its package directory,
// relative to the repository root, and its function.
type testRef struct {
	line int // the row's line in its file
	pkg  string
	test string
}

// provedBy is the header of the column of docs/reliability.md that names
// the tests of each promise.
const provedBy = "proved by"

var codeSpan = regexp.MustCompile("`([^`]*)`")

// tableCells splits a Markdown table row into its cells, trimmed; an
// escaped "\|" stays in its cell.
func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\':
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(line[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(line[start:]))
}

// tableTests returns the tests named in the column headed column of the
// Markdown tables of md. A cell of that column lists packages and tests as
// code spans, "`internal/cli`: `TestA`, `TestB`; `oracle`: `TestC`": a span
// that starts with "Test" is a test of the package named last before it,
// any other span is a package directory. A row that names no test, a test
// with no package before it, a package with no test after it, or a word
// outside a code span is an error: a name the check would not see.
func tableTests(md, column string) ([]testRef, error) {
	var refs []testRef
	col, header := -1, true
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			col, header = -1, true // the next table starts with its header
			continue
		}
		cells := tableCells(line)
		switch {
		case header:
			col, header = slices.Index(cells, column), false
			continue
		case col < 0:
			continue // a table without the column
		case strings.Trim(strings.Join(cells, ""), "-: ") == "" && strings.Contains(line, "-"):
			continue // the delimiter row
		}
		if col >= len(cells) {
			return nil, fmt.Errorf("line %d: no %q cell", i+1, column)
		}
		row, err := cellTests(cells[col])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		for _, r := range row {
			r.line = i + 1
			refs = append(refs, r)
		}
	}
	return refs, nil
}

// cellTests reads one cell of tableTests's column.
func cellTests(cell string) ([]testRef, error) {
	if rest := strings.Trim(codeSpan.ReplaceAllString(cell, ""), ":;, "); rest != "" {
		return nil, fmt.Errorf("%q is not a code span: write packages and tests as `pkg`: `TestName`", rest)
	}
	var refs []testRef
	pkg, named := "", true
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		name := m[1]
		if !strings.HasPrefix(name, "Test") {
			if !named {
				return nil, fmt.Errorf("package %s names no test", pkg)
			}
			pkg, named = name, false
			continue
		}
		if pkg == "" {
			return nil, fmt.Errorf("test %s has no package before it", name)
		}
		refs = append(refs, testRef{pkg: pkg, test: name})
		named = true
	}
	switch {
	case len(refs) == 0:
		return nil, fmt.Errorf("the row names no test")
	case !named:
		return nil, fmt.Errorf("package %s names no test", pkg)
	}
	return refs, nil
}

// testFuncs returns the names of the test functions (func TestX, no
// receiver) of the _test.go files of dir, whatever their build tags.
func testFuncs(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no _test.go file", rel(dir))
	}
	funcs := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs, nil
}

// missingTests returns, for each of refs whose package directory (under
// root) has no such test function, why.
func missingTests(root string, refs []testRef) []string {
	var bad []string
	funcs := map[string]map[string]bool{}
	for _, r := range refs {
		if path.Clean(r.pkg) != r.pkg || path.IsAbs(r.pkg) || strings.HasPrefix(r.pkg, "..") {
			bad = append(bad, fmt.Sprintf("line %d: %s is not a package directory of the repository", r.line, r.pkg))
			continue
		}
		names, ok := funcs[r.pkg]
		if !ok {
			var err error
			if names, err = testFuncs(filepath.Join(root, filepath.FromSlash(r.pkg))); err != nil {
				bad = append(bad, fmt.Sprintf("line %d: package %s: %v", r.line, r.pkg, err))
			}
			funcs[r.pkg] = names
		}
		if names != nil && !names[r.test] {
			bad = append(bad, fmt.Sprintf("line %d: package %s has no func %s", r.line, r.pkg, r.test))
		}
	}
	return bad
}

// TestReliabilityTableNamesRealTests: every test the table of
// docs/reliability.md names is a test function of the package it names,
// so that no promise points at a test that was renamed or removed.
func TestReliabilityTableNamesRealTests(t *testing.T) {
	refs, err := tableTests(readFile(t, filepath.Join(root, "docs", "reliability.md")), provedBy)
	if err != nil {
		t.Fatalf("docs/reliability.md: %v", err)
	}
	if len(refs) < 20 {
		t.Fatalf("docs/reliability.md names %d tests in its %q column: is the table there?", len(refs), provedBy)
	}
	for _, why := range missingTests(root, refs) {
		t.Errorf("docs/reliability.md: %s", why)
	}
}

// TestReliabilityTableCheck: the check of the table reads the cells as
// the page writes them, refuses a name it could not check, and reports a
// test or a package that does not exist.
func TestReliabilityTableCheck(t *testing.T) {
	md := "text | not a table\n\n" +
		"| under | promise | proved by |\n| --- | --- | --- |\n" +
		"| a | one \\| two | `docs`: `TestReliabilityTableCheck`, `TestMatchOutput`; `internal/proto`: `TestIDs` |\n" +
		"| b | three | `docs`: `TestNoSuchTest`; `no/such/dir`: `TestX`; `../up`: `TestY` |\n\n" +
		"| other | table |\n| --- | --- |\n| `x` | `y` |\n"
	refs, err := tableTests(md, provedBy)
	if err != nil {
		t.Fatal(err)
	}
	want := []testRef{{5, "docs", "TestReliabilityTableCheck"}, {5, "docs", "TestMatchOutput"}, {5, "internal/proto", "TestIDs"},
		{6, "docs", "TestNoSuchTest"}, {6, "no/such/dir", "TestX"}, {6, "../up", "TestY"}}
	if !slices.Equal(refs, want) {
		t.Fatalf("tableTests = %v, want %v", refs, want)
	}
	bad := missingTests(root, refs)
	if len(bad) != 3 || !strings.Contains(bad[0], "has no func TestNoSuchTest") ||
		!strings.Contains(bad[1], "no/such/dir") || !strings.Contains(bad[2], "../up is not a package directory") {
		t.Errorf("missingTests = %q, want the three of line 6", bad)
	}
	for _, cell := range []string{
		"`TestA`",                   // no package
		"`docs`: TestA",             // a test outside a code span
		"`docs`: `TestA`; `oracle`", // a package without a test
		"`docs`; `oracle`: `TestA`", // the same, before another
		"none",                      // no test at all
		"",
	} {
		if _, err := tableTests("| proved by |\n| --- |\n| "+cell+" |\n", provedBy); err == nil {
			t.Errorf("the cell %q was accepted", cell)
		}
	}
}

// ---- fenced blocks ----

// block is a fenced code block of a Markdown file.
type block struct {
	file string   // the Markdown file
	line int      // the line of its opening fence
	info []string // the words of the info string: language, then attributes
	body []string // its lines
}

func (b block) String() string { return fmt.Sprintf("%s:%d", rel(b.file), b.line) }

// blocks returns the fenced blocks of md whose language is lang, or
// every fenced block when lang is "".
func blocks(file, md, lang string) []block {
	var out []block
	var cur *block
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "```") {
			if cur != nil {
				cur.body = append(cur.body, line)
			}
			continue
		}
		if cur != nil {
			if lang == "" || cur.info[0] == lang {
				out = append(out, *cur)
			}
			cur = nil
			continue
		}
		info := strings.Fields(strings.TrimPrefix(line, "```"))
		if len(info) == 0 {
			info = []string{""}
		}
		cur = &block{file: file, line: i + 1, info: info}
	}
	return out
}

// attr returns the value of the block's attribute NAME=VALUE.
func (b block) attr(name string) string {
	for _, w := range b.info[1:] {
		if v, ok := strings.CutPrefix(w, name+"="); ok {
			return v
		}
	}
	return ""
}

// TestFileBlocks: a fenced block tagged file=PATH, of any language, shows
// that file as it is committed.
func TestFileBlocks(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range blocks(file, readFile(t, file), "") {
			path := b.attr("file")
			if path == "" {
				continue
			}
			n++
			text := strings.Join(b.body, "\n") + "\n"
			if got := readFile(t, filepath.Join(root, filepath.FromSlash(path))); got != text {
				t.Errorf("%s: the block is not %s as committed:\n%s\nthe file:\n%s", b, path, text, got)
			}
		}
	}
	if n == 0 {
		t.Error("no block tagged file=PATH in README.md or docs/")
	}
}

// TestSbxBlocks: a ```sbx block not tagged file=PATH is a scenario the
// reference passes, every expectation met.
func TestSbxBlocks(t *testing.T) {
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range blocks(file, readFile(t, file), "sbx") {
			if b.attr("file") != "" {
				continue
			}
			n++
			scenario := filepath.Join(t.TempDir(), "block.sbx")
			if err := os.WriteFile(scenario, []byte(strings.Join(b.body, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := run(t, commandEnv(t), filepath.Join(sbxfuzzDir(t), sbxfuzzExe()), "replay", scenario)
			if code != 0 {
				t.Errorf("%s: the scenario fails on the reference (exit %d):\n%s", b, code, out)
			}
		}
	}
	if n == 0 {
		t.Error("no ```sbx scenario in README.md or docs/")
	}
}

// ---- console blocks ----

// step is one command of a console block and what it must print.
type step struct {
	where   string   // file:line of the command
	command string   // for sh -c
	exit    int      // the exit status it must have
	want    []string // the expected output, "..." wildcards included
}

var exitComment = regexp.MustCompile(`\s#\s*exit (\d+)\s*$`)

// steps cuts a console block into its commands.
func steps(b block) ([]step, error) {
	var out []step
	for i := 0; i < len(b.body); i++ {
		line := b.body[i]
		cmd, ok := strings.CutPrefix(line, "$ ")
		if !ok {
			if len(out) == 0 {
				if strings.TrimSpace(line) == "" {
					continue
				}
				return nil, fmt.Errorf("%s:%d: output before the first command", rel(b.file), b.line+1+i)
			}
			out[len(out)-1].want = append(out[len(out)-1].want, line)
			continue
		}
		s := step{where: fmt.Sprintf("%s:%d", rel(b.file), b.line+1+i)}
		for strings.HasSuffix(cmd, `\`) && i+1 < len(b.body) {
			i++
			cmd = cmd[:len(cmd)-1] + "\n" + b.body[i]
		}
		if m := exitComment.FindStringSubmatch(cmd); m != nil {
			s.exit, _ = strconv.Atoi(m[1])
		}
		s.command = cmd
		out = append(out, s)
	}
	return out, nil
}

// matchOutput reports whether got matches want, whose lines may hold
// "..." (any text) or be "..." (any lines). Trailing white space of a
// line and trailing empty lines are ignored.
func matchOutput(want, got []string) bool {
	want, got = trimLines(want), trimLines(got)
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchOutput(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchOutput(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

func trimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func TestMatchOutput(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb\n", true},
		{"a\nb", "a\nc", false},
		{"a", "a\nb", false},
		{"a\n...\nd", "a\nb\nc\nd", true},
		{"a\n...\nd", "a\nd", true},
		{"a\n...", "a", true},
		{"...\nd", "a\nb", false},
		{"took ... s", "took 0.31 s", true},
		{"took ... s", "took 0.31 ms", false},
		{"x (... ops/s)", "x (12 ops/s)  ", true},
		{"", "", true},
		{"", "a", false},
	} {
		if got := matchOutput(strings.Split(tc.want, "\n"), strings.Split(tc.got, "\n")); got != tc.ok {
			t.Errorf("matchOutput(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}

func TestSteps(t *testing.T) {
	b := block{file: "x.md", line: 1, info: []string{"console"}, body: strings.Split(
		"$ a --x \\\n  --y   # exit 1\nout 1\n\n$ b\n$ c\nout c", "\n")}
	got, err := steps(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].command != "a --x \n  --y   # exit 1" || got[0].exit != 1 ||
		!slices.Equal(got[0].want, []string{"out 1", ""}) || got[1].want != nil || got[2].exit != 0 ||
		!slices.Equal(got[2].want, []string{"out c"}) || got[2].where != "x.md:7" {
		t.Errorf("steps = %+v", got)
	}
	if _, err := steps(block{file: "x.md", line: 1, info: []string{"console"}, body: []string{"stray"}}); err == nil {
		t.Error("output before the first command was accepted")
	}
}

// TestConsoleBlocks runs every command of every ```console block of the
// README and docs/*.md and checks its output and exit status, and that it
// left the checkout as it was.
func TestConsoleBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the documented commands take about half a minute")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh: the documented commands are shell commands")
	}
	env := commandEnv(t)
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range blocks(file, readFile(t, file), "console") {
			ss, err := steps(b)
			if err != nil {
				t.Error(err)
				continue
			}
			if len(ss) == 0 {
				t.Errorf("%s: a console block with no command", b)
			}
			for _, s := range ss {
				n++
				before := gitStatus(t)
				out, code := runCommand(t, env, s.command)
				if after := gitStatus(t); after != before {
					t.Errorf("%s: $ %s\nchanged the checkout (git status --porcelain --ignored):\n%s", s.where, s.command, statusChange(before, after))
				}
				got := strings.Split(out, "\n")
				if code != s.exit || !matchOutput(s.want, got) {
					t.Errorf("%s: $ %s\nexit %d, want %d; output:\n%s\nwant:\n%s", s.where, s.command, code, s.exit, out, strings.Join(s.want, "\n"))
				}
			}
		}
	}
	if n == 0 {
		t.Error("no ```console command in README.md or docs/")
	}
}

// gitStatus is git status --porcelain of the checkout, ignored files
// included (a command must not write corpus/findings/ either), or "" when
// git or the repository is not there.
func gitStatus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	cmd := exec.Command("git", "status", "--porcelain", "--untracked-files=all", "--ignored")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// statusChange lists the lines of git status that a command added (+) or
// took away (-).
func statusChange(before, after string) string {
	was := strings.Split(strings.TrimSpace(before), "\n")
	is := strings.Split(strings.TrimSpace(after), "\n")
	var out []string
	for _, l := range is {
		if !slices.Contains(was, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range was {
		if !slices.Contains(is, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// sbxfuzzDir builds sbxfuzz from this checkout once per test binary into a
// directory of its own and returns that directory.
func sbxfuzzDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "sbxfuzz-docs-bin"); buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, sbxfuzzExe()), "./cmd/sbxfuzz")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/sbxfuzz: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// sbxfuzzExe is the file name of the sbxfuzz binary on this OS.
func sbxfuzzExe() string {
	if runtime.GOOS == "windows" {
		return "sbxfuzz.exe"
	}
	return "sbxfuzz"
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// commandEnv is the environment of a documented command: sbxfuzz first on
// PATH; HOME, the user cache directory and TMPDIR in a temporary
// directory; the Go caches and settings of this process passed on; no
// SBXFUZZ_ variable.
func commandEnv(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	dir := sbxfuzzDir(t)
	home := t.TempDir()
	set := map[string]string{
		"PATH":           dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":           home,
		"USERPROFILE":    home,
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"),
		"TMPDIR":         t.TempDir(),
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV", "GOTOOLCHAIN", "GOFLAGS"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		set[v] = strings.TrimSpace(string(out))
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok && !strings.HasPrefix(k, "SBXFUZZ_") {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// runCommand runs command with sh -c in the repository root and returns
// its output, stdout and stderr interleaved, and its exit status (-1 when
// it could not run, was stopped, or printed more than maxOutput).
func runCommand(t *testing.T, env []string, command string) (string, int) {
	t.Helper()
	return run(t, env, "sh", "-c", command)
}

// run runs argv in the repository root, as runCommand does.
func run(t *testing.T, env []string, argv ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = env
	out := &boundedBuffer{limit: maxOutput, stop: cancel}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 10 * time.Second
	ownProcessGroup(cmd)
	err := cmd.Run()
	text := out.String()
	var exit *exec.ExitError
	switch {
	case out.over:
		return text + fmt.Sprintf("\n[stopped: more than %d bytes of output]", maxOutput), -1
	case ctx.Err() != nil:
		return text + fmt.Sprintf("\n[stopped after %v]", commandTimeout), -1
	case err == nil:
		return text, 0
	case errors.As(err, &exit):
		return text, exit.ExitCode()
	}
	return text + "\n[" + err.Error() + "]", -1
}

// boundedBuffer keeps up to limit bytes and calls stop once past it.
type boundedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
	over  bool
	stop  func()
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len()+len(p) > b.limit {
		b.over = true
		b.stop()
		return 0, errors.New("too much output")
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSuffix(b.buf.String(), "\n")
}
