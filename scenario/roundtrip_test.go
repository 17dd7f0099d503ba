package scenario

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// checkRoundTrip parses src, prints it, parses the print, and checks that
// both parses are Equal and that Format is a fixed point. It returns the
// first parse and its canonical text.
func checkRoundTrip(t *testing.T, reason, src string) (*Scenario, string) {
	t.Helper()
	s, err := Parse("rt.sbx", []byte(src))
	if err != nil {
		t.Fatalf("%s: Parse(%q): %v", reason, src, err)
	}
	out := s.Format()
	s2, err := Parse("rt.sbx", out)
	if err != nil {
		t.Fatalf("%s: canonical text does not parse: %v\n%s", reason, err, out)
	}
	if diff := cmp.Diff(*s, *s2, likeEqual); diff != "" {
		t.Errorf("%s: reparse of the canonical text mismatch (-first +second):\n%s\ntext:\n%s", reason, diff, out)
	}
	if !s.Equal(s2) {
		t.Errorf("%s: Equal is false on the reparse of the canonical text:\n%s", reason, out)
	}
	if diff := cmp.Diff(string(out), string(s2.Format())); diff != "" {
		t.Errorf("%s: Format is not a fixed point (-first +second):\n%s", reason, diff)
	}
	return s, string(out)
}

func TestRoundTripTokens(t *testing.T) {
	for _, tc := range []struct {
		reason string
		src    string
		args   []string // the first step's arguments
		canon  string   // the canonical text
	}{
		{"NUL, \\xff, newline, quote and backslash in quotes",
			`fs_write "/a\x00b" "\xff\n\"\\"`, []string{"/a\x00b", "\xff\n\"\\"},
			`fs_write "/a\x00b" "\xff\n\"\\"` + "\n"},
		{"quotes vanish where a bare word will do", `fs_read "/work/a"`, []string{"/work/a"}, "fs_read /work/a\n"},
		{"the empty token", `fs_write /a ""`, []string{"/a", ""}, "fs_write /a \"\"\n"},
		{"fullwidth dots are printable bare words", "fs_read /work/\uff0e\uff0e/etc/passwd", []string{"/work/\uff0e\uff0e/etc/passwd"},
			"fs_read /work/\uff0e\uff0e/etc/passwd\n"},
		{"zero-width space is quoted", "fs_read \"/a\u200b\"", []string{"/a\u200b"}, "fs_read \"/a\\u200b\"\n"},
		{"# inside a bare word is not a comment", "fs_read a#b", []string{"a#b"}, "fs_read a#b\n"},
		{"a token starting with # is quoted", `fs_read "#x" # comment`, []string{"#x"}, "fs_read \"#x\"\n"},
		{"a quoted arrow is an argument", `tool echo "=>"`, []string{"echo", "=>"}, "tool echo \"=>\"\n"},
		{"tabs, CR and runs of spaces separate tokens", "fs_write\t /a  \t b\r", []string{"/a", "b"}, "fs_write /a b\n"},
		{"unicode white space separates tokens", "fs_write\u00a0/a\u3000b", []string{"/a", "b"}, "fs_write /a b\n"},
		{"percent-encodings stay literal", "fs_read /work/%2e%2e/x", []string{"/work/%2e%2e/x"}, "fs_read /work/%2e%2e/x\n"},
		{"no arguments", "exec", nil, "exec\n"},
	} {
		s, canon := checkRoundTrip(t, tc.reason, tc.src)
		if len(s.Steps) != 1 {
			t.Errorf("%s: %d steps, want 1", tc.reason, len(s.Steps))
			continue
		}
		// No arguments and nil are the same.
		if diff := cmp.Diff(tc.args, s.Steps[0].Op.Args, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Parse(%q) args mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
		if diff := cmp.Diff(tc.canon, canon); diff != "" {
			t.Errorf("%s: Format(Parse(%q)) mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
	}
}

func TestRoundTripExpectations(t *testing.T) {
	for _, tc := range []struct {
		reason string
		src    string
		want   *Expect
		canon  string
	}{
		{"no expectation", "fs_read /a", nil, "fs_read /a\n"},
		{"kind only", "fs_read /a => not_found", &Expect{Kind: core.NotFound},
			"fs_read /a                                    => not_found\n"},
		{"a data token \"=>\"", `tool echo "=>" => ok "=>"`, &Expect{core.OK, "=>", true},
			`tool echo "=>"                                => ok "=>"` + "\n"},
		{"empty data is data", `fs_read /a => ok ""`, &Expect{core.OK, "", true},
			`fs_read /a                                    => ok ""` + "\n"},
		{"a trailing comment after the data", "fs_read /a => ok x # note", &Expect{core.OK, "x", true},
			"fs_read /a                                    => ok x\n"},
		{"an op of exactly 44 runes is aligned", "fs_read /" + repeat("a", 35) + " => ok", &Expect{Kind: core.OK},
			"fs_read /" + repeat("a", 35) + "  => ok\n"},
		{"an op of 45 runes gets one space", "fs_read /" + repeat("a", 36) + " => ok", &Expect{Kind: core.OK},
			"fs_read /" + repeat("a", 36) + " => ok\n"},
		{"width counts runes, not bytes", "fs_read /" + repeat("\uff0e", 35) + " => ok", &Expect{Kind: core.OK},
			"fs_read /" + repeat("\uff0e", 35) + "  => ok\n"},
	} {
		s, canon := checkRoundTrip(t, tc.reason, tc.src)
		if diff := cmp.Diff(tc.want, s.Steps[0].Expect); diff != "" {
			t.Errorf("%s: Parse(%q) Expect mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
		if diff := cmp.Diff(tc.canon, canon); diff != "" {
			t.Errorf("%s: Format(Parse(%q)) mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
	}
}

func TestHeaderWordKinds(t *testing.T) {
	src := "grant tool echo\n\n\"grant\" tool x\n\"dns\" => unknown_op\n\"toolout\" a b\nGRANT x\n\"redirect\" a\n"
	s, canon := checkRoundTrip(t, "header words as kinds", src)
	var kinds []string
	for _, st := range s.Steps {
		kinds = append(kinds, st.Op.Kind)
	}
	if diff := cmp.Diff([]string{"grant", "dns", "toolout", "GRANT", "redirect"}, kinds); diff != "" {
		t.Errorf("Parse(%q) op kinds mismatch (-want +got):\n%s", src, diff)
	}
	want := "grant tool echo\n\n\"grant\" tool x\n\"dns\"                                         => unknown_op\n\"toolout\" a b\nGRANT x\n\"redirect\" a\n"
	if diff := cmp.Diff(want, canon); diff != "" {
		t.Errorf("Format(Parse(%q)) mismatch (-want +got):\n%s", src, diff)
	}
}

func TestDefaultsOmitted(t *testing.T) {
	for _, tc := range []struct {
		reason string
		src    string
		canon  string
	}{
		{"defaults written out are dropped",
			"budget ops 1000\nbudget wall 1000000\nbudget output 1048576\nclock 0 1\nfs_read /a\n", "fs_read /a\n"},
		{"leading zeros are just numbers", "budget ops 01000\nclock 00 01\n", ""},
		{"budgets print in the order ops, wall, output", "budget output 0\nbudget wall 2\nbudget ops 3\n",
			"budget ops 3\nbudget wall 2\nbudget output 0\n"},
		{"the last budget line wins", "budget ops 5\nbudget ops 6\n", "budget ops 6\n"},
		{"a clock differing only in step prints", "clock 0 2\n", "clock 0 2\n"},
		{"a stopped clock prints", "clock 0 0\n", "clock 0 0\n"},
	} {
		_, canon := checkRoundTrip(t, tc.reason, tc.src)
		if diff := cmp.Diff(tc.canon, canon); diff != "" {
			t.Errorf("%s: Format(Parse(%q)) mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
	}
}

func TestHeaderOrder(t *testing.T) {
	src := `toolout b "2"
dns h ::ffff:127.0.0.1 fe80::1%eth0 10.0.0.1
grant tool t1
route h /p body
redirect h /r "http://169.254.169.254/latest/meta-data/"
grant net h
file /z z
clock 7 3
grant fs_write /w
file /a a
grant fs_read /r1 /r2
grant tool t2
toolout a 1
`
	want := `grant fs_read /r1 /r2
grant fs_write /w
grant net h
grant tool t1 t2
clock 7 3
file /z z
file /a a
route h /p body
redirect h /r http://169.254.169.254/latest/meta-data/
dns h ::ffff:127.0.0.1 fe80::1%eth0 10.0.0.1
toolout b 2
toolout a 1
`
	s, canon := checkRoundTrip(t, "header order", src)
	if diff := cmp.Diff(want, canon); diff != "" {
		t.Errorf("Format(Parse(header order)) mismatch (-want +got):\n%s", diff)
	}
	wantRoutes := []Route{{Host: "h", Path: "/p", Body: "body"},
		{Host: "h", Path: "/r", Body: "http://169.254.169.254/latest/meta-data/", Redirect: true}}
	if diff := cmp.Diff(wantRoutes, s.World.Routes); diff != "" {
		t.Errorf("Parse(header order) routes mismatch (-want +got):\n%s", diff)
	}
	wantDNS := []DNSRecord{{Host: "h", Addrs: []netip.Addr{
		netip.MustParseAddr("::ffff:127.0.0.1"), netip.MustParseAddr("fe80::1%eth0"), netip.MustParseAddr("10.0.0.1"),
	}}}
	if diff := cmp.Diff(wantDNS, s.World.DNS, addrEqual); diff != "" {
		t.Errorf("Parse(header order) DNS mismatch (-want +got):\n%s", diff)
	}
}

func TestComments(t *testing.T) {
	for _, tc := range []struct {
		reason  string
		src     string
		header  []string
		comment [][]string // per step
		canon   string
	}{
		{"a header block, then a step comment",
			"# finding\n#  indented\n#\n\ngrant fs_read /a\n\n# attack  \nfs_read /b\n",
			[]string{"finding", " indented", ""}, [][]string{{"attack"}},
			"# finding\n#  indented\n#\n\ngrant fs_read /a\n\n# attack\nfs_read /b\n"},
		{"a block directly above the first op belongs to it",
			"# about the op\nfs_read /a\n", nil, [][]string{{"about the op"}}, "# about the op\nfs_read /a\n"},
		{"a blank line makes it the header",
			"# header\n\nfs_read /a\n", []string{"header"}, [][]string{nil}, "# header\n\nfs_read /a\n"},
		{"comments among header lines move to the header",
			"grant fs_read /a\n# one\nbudget ops 3\n#two\n\n# three\nfs_read /a\n",
			[]string{"one", "two"}, [][]string{{"three"}},
			"# one\n# two\n\ngrant fs_read /a\nbudget ops 3\n\n# three\nfs_read /a\n"},
		{"later steps take every comment since the last op",
			"fs_read /a\n# x\n\n# y\nfs_read /b\nfs_read /c\n# dropped\n", nil, [][]string{nil, {"x", "y"}, nil},
			"fs_read /a\n\n# x\n# y\nfs_read /b\nfs_read /c\n"},
		{"trailing comments on statements are dropped",
			"grant tool t # why\nfs_read /a # note\n", nil, [][]string{nil}, "grant tool t\n\nfs_read /a\n"},
		{"a header comment alone", "# only\n", []string{"only"}, nil, "# only\n"},
		{"indented full-line comments count", "  # x\n\tfs_read /a\n", nil, [][]string{{"x"}}, "# x\nfs_read /a\n"},
	} {
		s, canon := checkRoundTrip(t, tc.reason, tc.src)
		// No comment lines and nil are the same.
		if diff := cmp.Diff(tc.header, s.Comment, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Parse(%q) header comment mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
		var comments [][]string
		for _, st := range s.Steps {
			comments = append(comments, st.Comment)
		}
		if diff := cmp.Diff(tc.comment, comments, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Parse(%q) step comments mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
		if diff := cmp.Diff(tc.canon, canon); diff != "" {
			t.Errorf("%s: Format(Parse(%q)) mismatch (-want +got):\n%s", tc.reason, tc.src, diff)
		}
	}
}

// TestFormatBuiltInCode checks scenarios built in code, as the minimizer
// builds them: multi-line comments split, and the result reparses.
func TestFormatBuiltInCode(t *testing.T) {
	s := New()
	s.Comment = []string{"invariant: confinement\nseed: 7", "class: traversal "}
	s.Grant.FSRead = []string{"/work/"}
	s.Steps = []Step{
		{Op: op("fs_read", "/work/../etc/passwd"), Expect: &Expect{Kind: core.PathTraversal}},
		{Op: op("file", "x"), Comment: []string{"a kind that is a header word"}},
	}
	want := `# invariant: confinement
# seed: 7
# class: traversal

grant fs_read /work/

fs_read /work/../etc/passwd                   => path_traversal

# a kind that is a header word
"file" x
`
	if diff := cmp.Diff(want, string(s.Format())); diff != "" {
		t.Errorf("Format(built in code) mismatch (-want +got):\n%s", diff)
	}
	checkRoundTrip(t, "built in code", want)
}

func repeat(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }
