package scenario

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
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

// TestParserReusesMemory: parsing the same text again allocates nothing
// when there are no DNS lines: the copy of the source goes into room kept
// for many.
func TestParserReusesMemory(t *testing.T) {
	src := []byte("grant fs_read /work/\ngrant fs_write /work/out/\nfile /work/a x\nroute h.example /p b\nlink /work/l /work/a\n" +
		strings.Repeat("fs_read /work/a\nfs_write /work/out/b data\n", 10))
	var p Parser
	if _, err := p.Parse("t.sbx", src); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { p.Parse("t.sbx", src) }); n != 0 {
		t.Errorf("Parser.Parse made %v allocations, want 0", n)
	}
}

// TestParserKeepsStrings: the strings of a scenario a Parser returned, kept
// by a Clone, stay as they were while the Parser goes on parsing, past
// the room it copies sources into and with sources as large as that room.
func TestParserKeepsStrings(t *testing.T) {
	srcs := parserSources(t)
	srcs = append(srcs, "# big\nfs_read \""+strings.Repeat("x", maxTexts)+"\"\n")
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
