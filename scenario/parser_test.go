package scenario

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// parserSources are .sbx texts of every shape: the corpus, the golden
// files, and texts that fail, have comments, expectations, DNS lines, a
// byte-order mark, or nothing at all.
func parserSources(t testing.TB) []string {
	t.Helper()
	srcs := []string{
		"", "\n\n", "# only a comment\n", "\ufeffgrant fs_read /a\nfs_read /a\n",
		"grant net a.example\ndns a.example 1.2.3.4 ::1\ndns b.example 5.6.7.8\nnet_fetch a.example /x => ok\n",
		"# head\n\n# above\nfs_read /a => fs_read_denied\n# between\nfs_write /a \"x y\" => ok \"\"\n",
		"fs_read /a\nfile /a b\n", "grant fs_read relative\n", "fs_read \"/a\n", "budget ops 5 6\n",
		strings.Repeat("fs_read /a b c d e f g h\n", 100),
	}
	for _, root := range []string{"../corpus", "testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".sbx") {
				return err
			}
			b, err := os.ReadFile(path)
			srcs = append(srcs, string(b))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return srcs
}

// TestParserIsParse: one Parser, fed every source in turn, forwards and
// then backwards, returns what Parse returns for each, nil lists and line
// numbers included, and the same errors.
func TestParserIsParse(t *testing.T) {
	srcs := parserSources(t)
	var p Parser
	back := slices.Clone(srcs)
	slices.Reverse(back)
	for _, src := range append(slices.Clone(srcs), back...) {
		want, wantErr := Parse("t.sbx", []byte(src))
		got, gotErr := p.Parse("t.sbx", []byte(src))
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Fatalf("Parser.Parse error %v, Parse error %v, on\n%s", gotErr, wantErr, src)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parser.Parse gave\n%#v\nParse gave\n%#v\non\n%s", got, want, src)
		}
	}
}

// TestParserReusesMemory: parsing the same text again, when there are no
// DNS lines, allocates only the copy of the source its strings point into.
func TestParserReusesMemory(t *testing.T) {
	src := []byte("grant fs_read /work/\ngrant fs_write /work/out/\nfile /work/a x\nroute h.example /p b\nlink /work/l /work/a\n" +
		strings.Repeat("fs_read /work/a\nfs_write /work/out/b data\n", 10))
	var p Parser
	if _, err := p.Parse("t.sbx", src); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { p.Parse("t.sbx", src) }); n > 1 {
		t.Errorf("Parser.Parse made %v allocations, want 1", n)
	}
}

// TestParserKeepsStrings: the strings of a scenario a Parser returned, kept
// by a Clone, stay as they were while the Parser goes on parsing, past
// the room it copies sources into and with sources as large as that room.
func TestParserKeepsStrings(t *testing.T) {
	srcs := parserSources(t)
	srcs = append(srcs, "# big\nfs_read \""+strings.Repeat("x", 16<<10)+"\"\n")
	var p Parser
	type kept struct {
		s    *Scenario
		text string
	}
	var all []kept
	for range 3 {
		for _, src := range srcs {
			b := []byte(src)
			s, err := p.Parse("t.sbx", b)
			clear(b) // the caller's bytes are its own: a fuzzer rewrites them
			if err != nil {
				continue
			}
			c := s.Clone()
			all = append(all, kept{c, string(c.Format())})
		}
	}
	for i, k := range all {
		if got := string(k.s.Format()); got != k.text {
			t.Fatalf("scenario %d changed after more parses: was\n%s\nis\n%s", i, k.text, got)
		}
	}
}

// TestParserResumesHeader: one Parser, fed each source and then edits of
// it, as a fuzzer feeds mutations of one input, returns what Parse returns
// for each, whether the edit leaves the header alone (the Parser resumes
// after it) or not.
func TestParserResumesHeader(t *testing.T) {
	edits := []sourceEdit{
		{"same", func(s string) string { return s }},
		{"op appended", func(s string) string { return s + "fs_read /work/new\n" }},
		{"last line edited", func(s string) string { return s + " x" }},
		{"first byte edited", func(s string) string { return "#" + s }},
		{"byte-order mark", func(s string) string { return "\ufeff" + s }},
		{"truncated", func(s string) string { return s[:len(s)/2] }},
		{"header line appended", func(s string) string { return s + "grant fs_read /z\n" }},
		{"NUL appended", func(s string) string { return s + "fs_read \x00\n" }},
		{"bad escape appended", func(s string) string { return s + "fs_read \"\\q\"\n" }},
	}
	var p Parser
	for _, src := range parserSources(t) {
		all := edits
		if s, err := Parse("t.sbx", []byte(src)); err == nil && len(s.Steps) > 0 {
			// Edits at the first op line, where the header ends.
			i := lineStart(src, s.Steps[0].Line)
			at := func(name, text string) sourceEdit {
				return sourceEdit{name, func(s string) string { return s[:i] + text + s[i:] }}
			}
			all = append(all[:len(all):len(all)],
				at("header line above the first op", "grant tool x\n"),
				at("comment above the first op", "# new\n"),
				at("blank line above the first op", "\n"),
				at("bad line above the first op", "=> ok\n"),
				sourceEdit{"ops dropped", func(s string) string { return s[:i] }},
			)
		}
		for _, e := range all {
			for _, s := range []string{src, e.edit(src)} {
				want, wantErr := Parse("t.sbx", []byte(s))
				got, gotErr := p.Parse("t.sbx", []byte(s))
				if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
					t.Fatalf("%s: Parser.Parse error %v, Parse error %v, on\n%s", e.name, gotErr, wantErr, s)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: Parser.Parse gave\n%#v\nParse gave\n%#v\non\n%s", e.name, got, want, s)
				}
			}
		}
	}
}

// sourceEdit is an edit of a source, named.
type sourceEdit struct {
	name string
	edit func(src string) string
}

// lineStart returns the offset where the 1-based line n of src starts.
func lineStart(src string, n int) int {
	i := 0
	for ; n > 1; n-- {
		i += strings.IndexByte(src[i:], '\n') + 1
	}
	return i
}

// FuzzParserIsParse: a Parser that parsed a returns for b what Parse
// returns, whatever a and b share (a header it resumes after, or not).
func FuzzParserIsParse(f *testing.F) {
	srcs := parserSources(f)
	for i, s := range srcs {
		f.Add([]byte(s), []byte(s+"fs_read /x\n"))
		f.Add([]byte(s), []byte(srcs[(i+1)%len(srcs)]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var p Parser
		for _, src := range [][]byte{a, b, a} {
			want, wantErr := Parse("t.sbx", src)
			got, gotErr := p.Parse("t.sbx", src)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Fatalf("Parser.Parse error %v, Parse error %v, on\n%q", gotErr, wantErr, src)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Parser.Parse gave\n%#v\nParse gave\n%#v\non\n%q", got, want, src)
			}
		}
	})
}

// TestStepFields guards parser.op, which writes a step field by field into
// a slot that may hold an earlier parse's step: when Step or core.Op gains
// a field, op must write it too, and this list must grow with it.
func TestStepFields(t *testing.T) {
	for _, c := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflect.TypeFor[Step](), []string{"Op", "Expect", "Comment", "Line", "Class"}},
		{reflect.TypeFor[core.Op](), []string{"Kind", "Args"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%v has fields %q, parser.op writes %q: update op and this test", c.typ, got, c.want)
		}
	}
}

// TestParserOverwritesSteps: a caller may edit the steps a Parser returned
// (the fuzz decoder drops expectations and lines in place); the next parse
// of the same or another source writes every field of the slots it reuses.
func TestParserOverwritesSteps(t *testing.T) {
	srcs := parserSources(t)
	var p Parser
	for _, src := range append(slices.Clone(srcs), srcs...) {
		want, wantErr := Parse("t.sbx", []byte(src))
		got, err := p.Parse("t.sbx", []byte(src))
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("Parser.Parse error %v, Parse error %v", err, wantErr)
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parser.Parse gave\n%#v\nParse gave\n%#v\non\n%s", got, want, src)
		}
		for i := range got.Steps[:cap(got.Steps)] {
			got.Steps[:cap(got.Steps)][i] = Step{Op: core.Op{Kind: "x", Args: []string{"y"}}, Expect: &Expect{Kind: core.OK},
				Comment: []string{"z"}, Line: 99, Class: 3}
		}
	}
}
