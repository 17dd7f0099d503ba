//go:build unix

package mcp

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// startWith starts the fake server in mode over a fresh tree with profile
// p, closed when the test ends.
func startWith(t *testing.T, mode string, p Profile) (*Server, tree) {
	t.Helper()
	tr := newTree(t)
	cfg := fakeConfig(t, mode, tr)
	cfg.Profile = p
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, tr
}

// mustProfile parses a profile written in a test.
func mustProfile(t *testing.T, text string) Profile {
	t.Helper()
	p, err := ParseProfile([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const fakeWords = `"denied": ["Access denied"], "not_found": ["ENOENT"]`

// TestReadContentShapes: a read's content is found in a JSON field of the
// answer, or after a header line; the whole text otherwise. The tree's
// root, echoed by the server, is cut out of what comes back.
// TestLinePrefix: a read numbered as "cat -n" numbers it gives the file's
// bytes once the profile says how its lines begin, a file line that
// begins like a number included, and only its first prefix is cut.
func TestLinePrefix(t *testing.T) {
	x := &Extract{Header: `\[file\]\n`, LinePrefix: ` *\d+\t`, Footer: `\nTotal lines in file: \d+\n`}
	for _, tc := range []struct{ text, want string }{
		{"[file]\n     1\thello\n     2\t3\tthree\n", "hello\n3\tthree\n"},
		{"[file]\n     1\thello\n\nTotal lines in file: 1\n", "hello\n"},
		{"[file]\n     1\tno final newline", "no final newline"},
		{"[file]\n", ""},
		{"an answer without the header or a number", "an answer without the header or a number"},
	} {
		if got, _ := x.content(tc.text); got != tc.want {
			t.Errorf("content(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// The footer is cut only at the end: a file holding its words keeps them.
	footed := &Extract{Footer: `\nTotal lines in file: \d+\n`}
	if got, _ := footed.content("a\nTotal lines in file: 9\nb\n\nTotal lines in file: 3\n"); got != "a\nTotal lines in file: 9\nb\n" {
		t.Errorf("a file holding the footer's words: %q, want them kept", got)
	}
	// A line broken in two, as VoltAgent's read_file breaks one past
	// 10,000 characters, is one again.
	wrapped := &Extract{LinePrefix: ` *\d+\t`, Continuation: `\n *\d+\.\d+\t`}
	if got, _ := wrapped.content("     1\tabc\n   1.1\tdef\n   1.2\tg\n     2\t1.1\tx"); got != "abcdefg\n1.1\tx" {
		t.Errorf("a broken line: %q, want it whole", got)
	}
}

// TestHomeInAnAnswer: a server that names a file of its own HOME in an
// answer says $HOME, the same in a run and its replay, each server with
// a HOME of its own.
func TestHomeInAnAnswer(t *testing.T) {
	p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file"}, `+fakeWords+`}`)
	s, tr := startWith(t, "homenote", p)
	got, err := NewDriver(s, tr).Do(read("/work/hello.txt"))
	if want := "hello from work\n(a copy in $HOME/copy.txt)"; err != nil || got.Data != want {
		t.Errorf("%+v %v, want data %q", got, err, want)
	}
}

func TestReadContentShapes(t *testing.T) {
	for _, tc := range []struct {
		mode, result, want string
	}{
		{"wrapjson", `{"json": "content"}`, "hello from work\n"},
		{"header", `{"header": "\\[Reading \\d+ lines[^\\]]*\\]\\n\\n"}`, "hello from work\n"},
		{"fs", `{"header": "\\[Reading"}`, "hello from work\n"},
	} {
		p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file", "result": `+tc.result+`}, `+fakeWords+`}`)
		s, tr := startWith(t, tc.mode, p)
		got, err := NewDriver(s, tr).Do(read("/work/hello.txt"))
		if err != nil || got.Verdict != realfs.Allowed || got.Data != tc.want {
			t.Errorf("%s with result %s: %+v %v, want data %q", tc.mode, tc.result, got, err, tc.want)
		}
	}
	// A server that reads by lines: the final newline is lost unless the
	// profile says so, and then only that.
	for _, tc := range []struct {
		result, path, want string
	}{
		{`{"header": "\\[Reading[^\\]]*\\]\\n\\n"}`, "/work/hello.txt", "hello from work"},
		{`{"header": "\\[Reading[^\\]]*\\]\\n\\n", "lines": true}`, "/work/hello.txt", "hello from work\n"},
		{`{"header": "\\[Reading[^\\]]*\\]\\n\\n", "lines": true}`, "/work/crlf.txt", "a\r\nb\r\n"},
	} {
		p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file", "result": `+tc.result+`}, `+fakeWords+`}`)
		s, tr := startWith(t, "bylines", p)
		if err := os.WriteFile(string(tr)+"/work/crlf.txt", []byte("a\r\nb\r\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := NewDriver(s, tr).Do(read(tc.path))
		if err != nil || got.Verdict != realfs.Allowed || got.Data != tc.want {
			t.Errorf("bylines with result %s, %s: %+v %v, want data %q", tc.result, tc.path, got, err, tc.want)
		}
	}
	// A server that cuts long lines: the file's bytes when the profile
	// says how, and only then.
	for _, tc := range []struct {
		result string
		file   bool
	}{
		{`{}`, false},
		{`{"line_max": 10}`, true},
		{`{"line_max": 10, "line_mark": "…"}`, false},
		{`{"line_max": 12}`, false},
	} {
		p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file", "result": `+tc.result+`}, `+fakeWords+`}`)
		s, tr := startWith(t, "cutlines", p)
		const long = "short\n0123456789abcdefghij\n\nend"
		if err := os.WriteFile(string(tr)+"/work/long.txt", []byte(long), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := NewDriver(s, tr).Do(read("/work/long.txt"))
		if err != nil || got.Verdict != realfs.Allowed || (got.Data == long) != tc.file {
			t.Errorf("cutlines with result %s: %+v %v, want the file's bytes: %v", tc.result, got, err, tc.file)
		}
	}
	// A server that shows tabs as spaces: the file's bytes when the
	// profile says as what, and only then.
	for _, tc := range []struct {
		result string
		file   bool
	}{
		{`{}`, false},
		{`{"tab": "        "}`, true},
		{`{"tab": "    "}`, false},
	} {
		p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file", "result": `+tc.result+`}, `+fakeWords+`}`)
		s, tr := startWith(t, "tabs", p)
		const tabbed = "a\tb\n\tc"
		if err := os.WriteFile(string(tr)+"/work/tabs.txt", []byte(tabbed), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := NewDriver(s, tr).Do(read("/work/tabs.txt"))
		if err != nil || got.Verdict != realfs.Allowed || (got.Data == tabbed) != tc.file {
			t.Errorf("tabs with result %s: %+v %v, want the file's bytes: %v", tc.result, got, err, tc.file)
		}
	}
	// An answer that describes the file: its bytes on the disk.
	p := mustProfile(t, `{"name": "x", "read": {"tool": "read_file", "result": {"described": ["^\\[Reading"]}}, `+fakeWords+`}`)
	ds, dtr := startWith(t, "header", p)
	if got, err := NewDriver(ds, dtr).Do(read("/work/hello.txt")); err != nil || got.Data != "hello from work\n" {
		t.Errorf("a described file: %+v %v, want its bytes", got, err)
	}
	if _, err := ParseProfile([]byte(`{"read": {"tool": "r", "path": "p", "result": {"described": ["x*"]}}, "denied": ["d"], "not_found": ["n"]}`)); err == nil {
		t.Error("a described pattern that matches every answer was taken")
	}
	// The whole text of the JSON answer: the echoed path is the world's.
	s, tr := startWith(t, "wrapjson", mustProfile(t, `{"read": {"tool": "read_file"}, `+fakeWords+`}`))
	got, err := NewDriver(s, tr).Do(read("/work/hello.txt"))
	if err != nil || strings.Contains(got.Data, string(tr)) || !strings.Contains(got.Data, `"path": "/work/hello.txt"`) || got.Whole {
		t.Errorf("the whole JSON answer: %+v %v, want the tree's root %q cut out of it, and no content missed", got, err, tr)
	}
	// A result that does not fit the answer: the whole text, said so.
	s, tr = startWith(t, "wrapjson", mustProfile(t, `{"read": {"tool": "read_file", "result": {"json": "nope"}}, `+fakeWords+`}`))
	got, err = NewDriver(s, tr).Do(read("/work/hello.txt"))
	if err != nil || !got.Whole || !strings.Contains(got.Data, `"content"`) {
		t.Errorf("a result that does not fit: %+v %v, want the whole answer, marked Whole", got, err)
	}
}

// TestNestedConstantArguments: a write with a constant mode, a nested
// non-string option and its path at a dotted name reaches the disk; a
// read with a constant boolean works.
func TestNestedConstantArguments(t *testing.T) {
	p := mustProfile(t, `{"name": "nested",
		"read": {"tool": "read_file", "args": {"raw": true}},
		"write": {"tool": "write_file", "path": "target.file", "content": "body", "args": {"mode": "overwrite", "opts.mkdir": false}},
		`+fakeWords+`}`)
	s, tr := startWith(t, "nested", p)
	d := NewDriver(s, tr)
	if got, err := d.Do(write("/work/new.txt", "fresh")); err != nil || got.Verdict != realfs.Allowed {
		t.Fatalf("write: %+v %v", got, err)
	}
	if b, err := os.ReadFile(string(tr) + "/work/new.txt"); err != nil || string(b) != "fresh" {
		t.Errorf("on disk: %q %v", b, err)
	}
	if got, err := d.Do(read("/work/new.txt")); err != nil || got.Data != "fresh" {
		t.Errorf("read: %+v %v", got, err)
	}
}

// TestRootArgument: a constant argument "{{root}}" is the server's first
// allowed directory, in every call, nested or not; a server that wants
// its root named refuses a profile that names another.
func TestRootArgument(t *testing.T) {
	for _, tc := range []struct {
		root string
		want realfs.Verdict
	}{{`"{{root}}"`, realfs.Allowed}, {`"/"`, realfs.Denied}} {
		p := mustProfile(t, `{"name": "rootarg", "read": {"tool": "read_file", "args": {"root": `+tc.root+`}},
			"write": {"tool": "write_file", "args": {"root": `+tc.root+`}}, "denied": ["Access denied", "bad root"], "not_found": ["ENOENT"]}`)
		s, tr := startWith(t, "rootarg", p)
		d := NewDriver(s, tr)
		if got, err := d.Do(write("/work/new.txt", "fresh")); err != nil || got.Verdict != tc.want {
			t.Errorf("root %s: write %+v %v, want %v", tc.root, got, err, tc.want)
		}
		if got, err := d.Do(read("/work/hello.txt")); err != nil || got.Verdict != tc.want {
			t.Errorf("root %s: read %+v %v, want %v", tc.root, got, err, tc.want)
		}
	}
	nested := map[string]any{"a": RootArg, "b": []any{RootArg, "x", map[string]any{"c": RootArg}}}
	withRoot(nested, "/r")
	if want := map[string]any{"a": "/r", "b": []any{"/r", "x", map[string]any{"c": "/r"}}}; !cmp.Equal(nested, want) {
		t.Errorf("withRoot: %v, want %v", nested, want)
	}
}

// TestDirsByConfigAndEnv: the allowed directories reach a server through
// a config file rendered into its own HOME, or an environment variable,
// with the profile's extra environment; the server then allows them and
// denies the rest. A pool restarts such a server when they change.
func TestDirsByConfigAndEnv(t *testing.T) {
	for _, tc := range []struct{ mode, profile string }{
		{"config", `"dirs_config": {"file": ".fake/config.json", "template": "{\"allowed\": {{dirs}}}"}`},
		{"envdirs", `"dirs_env": {"name": "FAKE_DIRS", "sep": ","}, "env": {"FAKE_EXTRA": "yes"}`},
	} {
		p := mustProfile(t, `{"read": {"tool": "read_file"}, `+tc.profile+`, `+fakeWords+`}`)
		tr := newTree(t)
		cfg := fakeConfig(t, tc.mode, tr)
		cfg.Profile = p
		var pool Pool
		s, err := pool.Get(cfg)
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		d := NewDriver(s, tr)
		if got, err := d.Do(read("/work/hello.txt")); err != nil || got.Verdict != realfs.Allowed {
			t.Errorf("%s: an allowed read: %+v %v", tc.mode, got, err)
		}
		if got, err := d.Do(read("/outside/secret")); err != nil || got.Verdict != realfs.Denied {
			t.Errorf("%s: a read outside: %+v %v", tc.mode, got, err)
		}
		cfg.Allowed = []string{string(tr) + "/outside"}
		s2, err := pool.Get(cfg)
		if err != nil || s2 == s {
			t.Fatalf("%s: other allowed directories kept the server (%v)", tc.mode, err)
		}
		if got, err := NewDriver(s2, tr).Do(read("/outside/secret")); err != nil || got.Verdict != realfs.Allowed {
			t.Errorf("%s: a read in the new directory: %+v %v", tc.mode, got, err)
		}
		home := s2.home
		pool.Close()
		if _, err := os.Stat(home); !os.IsNotExist(err) {
			t.Errorf("%s: the server's HOME %s is still there: %v", tc.mode, home, err)
		}
	}
}

// TestDirsArgs: the allowed directories reach a server joined in one
// argument, put between the profile's command and the --sut one (as
// Deno's --allow-read=DIRS before its script); the server then allows
// them and denies the rest, and is given no such argument without any.
func TestDirsArgs(t *testing.T) {
	p := mustProfile(t, `{"read": {"tool": "read_file"}, "dirs_args": ["--dirs={{dirs}}"], "dirs_sep": ";", `+fakeWords+`}`)
	tr := newTree(t)
	cfg := fakeConfig(t, "argdirs", tr)
	p.Command, cfg.Command = cfg.Command[:2], cfg.Command[2:] // python and the script; the mode
	cfg.Profile = p
	cfg.Allowed = append(cfg.Allowed, string(tr)+"/elsewhere")
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := NewDriver(s, tr)
	if got, err := d.Do(read("/work/hello.txt")); err != nil || got.Verdict != realfs.Allowed {
		t.Errorf("an allowed read: %+v %v", got, err)
	}
	if got, err := d.Do(read("/outside/secret")); err != nil || got.Verdict != realfs.Denied {
		t.Errorf("a read outside: %+v %v", got, err)
	}
	want := []string{"node", "--dirs=/a;/b", "server.ts"}
	if got := (Profile{Command: []string{"node"}, DirsArgs: []string{"--dirs={{dirs}}"}, DirsSep: ";"}).argv([]string{"server.ts"}, []string{"/a", "/b"}); !slices.Equal(got, want) {
		t.Errorf("argv %q, want %q", got, want)
	}
	if got := (Profile{DirsArgs: []string{"--allow-read={{dirs}}"}}).argv([]string{"deno", "server.ts"}, nil); !slices.Equal(got, []string{"deno", "server.ts"}) {
		t.Errorf("argv with no directory %q, want the flag left out", got)
	}
	cfg.Allowed = []string{string(tr) + "/da;ta"}
	if s, err := Start(cfg); err == nil || !strings.Contains(err.Error(), `joins the allowed directories with ";"`) {
		if err == nil {
			s.Close()
		}
		t.Errorf("a directory that holds the separator: %v, want an error naming it", err)
	}
}

// TestCommandPrefix: the profile's command comes before the --sut one.
func TestCommandPrefix(t *testing.T) {
	tr := newTree(t)
	cfg := fakeConfig(t, "fs", tr)
	cfg.Profile = Filesystem
	cfg.Profile.Command = cfg.Command[:1] // python
	cfg.Command = cfg.Command[1:]         // the script and its mode
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := NewDriver(s, tr).Do(read("/work/hello.txt")); err != nil || got.Data != "hello from work\n" {
		t.Errorf("%+v %v", got, err)
	}
}

// TestRefusalInSuccess: a successful result whose text matches a refusal
// pattern is a failed call, read by its words; without the pattern it is
// a read of that text.
func TestRefusalInSuccess(t *testing.T) {
	for _, tc := range []struct {
		refusals string
		want     realfs.Verdict
	}{
		{`["^Error: "]`, realfs.Denied},
		{`[]`, realfs.Allowed},
	} {
		p := mustProfile(t, `{"read": {"tool": "read_file"}, "refusals": `+tc.refusals+`, `+fakeWords+`}`)
		s, tr := startWith(t, "okdeny", p)
		got, err := NewDriver(s, tr).Do(read("/outside/secret"))
		if err != nil || got.Verdict != tc.want {
			t.Errorf("refusals %s: %+v %v, want %v", tc.refusals, got, err, tc.want)
		}
	}
}

// TestLogLinesSkipped: lines on stdout that are not JSON are skipped and
// counted, not a protocol error.
func TestLogLinesSkipped(t *testing.T) {
	s, tr := startFake(t, "logs")
	d := NewDriver(s, tr)
	for range 2 {
		if got, err := d.Do(read("/work/hello.txt")); err != nil || got.Data != "hello from work\n" {
			t.Fatalf("%+v %v", got, err)
		}
	}
	// Two lines before each message: initialize, tools/list, two calls.
	if n := s.SkippedLines(); n != 8 {
		t.Errorf("%d lines skipped, want 8", n)
	}
}

// TestArguments: constants at dotted names, then the path and the data;
// JSON values keep their types.
func TestArguments(t *testing.T) {
	tool := Tool{Name: "w", Path: "a.path", Content: "data", Args: map[string]json.RawMessage{"a.mode": json.RawMessage(`"x"`), "n": json.RawMessage(`[1, {"b": null}]`)}}
	got, err := tool.arguments("/p", "d")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"a":{"mode":"x","path":"/p"},"data":"d","n":[1,{"b":null}]}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
	lists := Tool{Name: "w", Path: "items[].path", Content: "items[].content", Args: map[string]json.RawMessage{"items[].append": json.RawMessage(`false`), "tags[]": json.RawMessage(`"t"`)}}
	got, err = lists.arguments("p", "d")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(got)
	if want := `{"items":[{"append":false,"content":"d","path":"p"}],"tags":["t"]}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}

// TestRelative: a path is spelled from the server's directory as the op
// wrote it, climbing with ".." to the deepest directory that holds it.
func TestRelative(t *testing.T) {
	for _, tc := range []struct{ base, p, want string }{
		{"/t/srv/app", "/t/srv/app/a.txt", "a.txt"},
		{"/t/srv/app", "/t/srv/app/d/./b", "d/./b"},
		{"/t/srv/app", "/t/srv/app//x", "x"},
		{"/t/srv/app", "/t/srv/app", "."},
		{"/t/srv/app", "/t/srv/app/", "."},
		{"/t/srv/app", "/t/srv/appshop/x", "../appshop/x"},
		{"/t/srv/app", "/t/srv//app/x", "x"},
		{"/t/srv/app", "/t/etc/passwd", "../../etc/passwd"},
		{"/t/srv/app", "/t/srv", ".."},
		{"/", "/etc/passwd", "etc/passwd"},
		{"/t/srv/app/", "/t/srv/app/a", "a"},
		{"/t/srv/app/", "/t/srv/app", "."},
		{"/t/srv/app/", "/t/srv/x", "../x"},
		{"/t/srv/app", "/t/srv/app/./", "./"},
		{"/t/srv/app", "/t//srv/app/a", "a"},
		{"/t/srv/app", "/t/srv/./app/a", "a"},
		{"/t/srv/app", "//t/srv/./appshop/./x", "../appshop/./x"},
		{"/t/srv/app", "/t/srv/app/../app/a", "../app/a"},
		{"/t/srv/app", "/t/./srv/app", "."},
		{"C:/t/app", "C:/t/app/x", "x"},
		{"C:/t/app", "D:/x", "D:/x"},
	} {
		if got := relative(tc.base, tc.p); got != tc.want {
			t.Errorf("relative(%q, %q) = %q, want %q", tc.base, tc.p, got, tc.want)
		}
	}
}

// TestAsFile: content read by lines is taken as the file's only when it
// differs from it by a final newline and line endings (a lone "\r" one of
// them), never when it is another file's.
func TestAsFile(t *testing.T) {
	p := t.TempDir() + "/f"
	if err := os.WriteFile(p, []byte("one\r\ntwo\rthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for data, want := range map[string]string{
		"one\ntwo\nthree":       "one\r\ntwo\rthree\n",
		"one\r\ntwo\rthree\n":   "one\r\ntwo\rthree\n",
		"one\ntwo\nthree\nmore": "one\ntwo\nthree\nmore",
		"SECRET":                "SECRET",
	} {
		if got := asFile(data, fileAt(p), &Extract{Lines: true}); got != want {
			t.Errorf("asFile(%q, %s) = %q, want %q", data, p, got, want)
		}
	}
	blank := t.TempDir() + "/blank"
	for _, c := range []struct{ file, data string }{{"line one\n\n", "line one\n"}, {"\n\n", "\n"}, {"a\r\r", "a\n"}, {"a\n", "a"}, {"a\n", "a\n"}} {
		file, data := c.file, c.data
		if err := os.WriteFile(blank, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := asFile(data, fileAt(blank), &Extract{Lines: true}); got != file {
			t.Errorf("asFile(%q) of a file %q = %q, want the file", data, file, got)
		}
	}
	if got := asFile("x", fileAt(p+"-missing"), &Extract{Lines: true}); got != "x" {
		t.Errorf("asFile of a missing file = %q, want the data as it came", got)
	}
}

// fileAt reads the file at p, as a driver's second look at a file does.
func fileAt(p string) func() ([]byte, error) {
	return func() ([]byte, error) { return os.ReadFile(p) }
}

// TestUnreadableSaysWhichField: a result whose text is no string (a
// server that put a parsed JSON body there) is named by its field.
func TestUnreadableSaysWhichField(t *testing.T) {
	var r toolResult
	err := unreadable(json.Unmarshal([]byte(`{"content": [{"type": "text", "text": {"items": [1]}}]}`), &r))
	if err == nil || err.Error() != "its content.text is a JSON object, not a string" {
		t.Errorf("%v", err)
	}
}

// TestResultParts: a tool result's words are its text items, else its
// embedded resources' content; everything else that may hold a file's
// bytes is carried, decoded, each part on a line; a part that is not of
// the protocol's shape is left, never an error.
func TestResultParts(t *testing.T) {
	for _, tc := range []struct{ raw, text, carried string }{
		{`{"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}`, "ab", ""},
		{`{"content": [{"type": "resource", "resource": {"uri": "file:///x", "text": "one\n"}}]}`, "one\n", ""},
		{`{"content": [{"type": "resource", "resource": {"uri": "file:///x", "blob": "dHdvCg=="}}]}`, "two\n", ""},
		{`{"content": [{"type": "text", "text": "read"}, {"type": "resource", "resource": {"text": "one"}}]}`, "read", "one"},
		{`{"content": [{"type": "image", "data": "aW1n", "mimeType": "image/png"}, {"type": "audio", "data": "not base64!"}]}`, "", "img\nnot base64!"},
		{`{"content": [], "structuredContent": {"z": "last", "a": ["x\ny", {"n": 1, "s": "s"}]}}`, "", "x\ny\ns\nlast"},
		{`{"content": [{"type": "image", "data": {"b64": 1}}, {"type": "resource", "resource": "file:///x"}], "structuredContent": null}`, "", ""},
	} {
		var r toolResult
		if err := json.Unmarshal([]byte(tc.raw), &r); err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if got := r.result(); got.Text != tc.text || got.Carried != tc.carried {
			t.Errorf("%s: text %q, carried %q; want %q, %q", tc.raw, got.Text, got.Carried, tc.text, tc.carried)
		}
	}
}

// TestCutWord: a relative path is cut out of an error text where it
// stands as a word, never out of the words around it.
func TestCutWord(t *testing.T) {
	for _, tc := range []struct{ text, p, want string }{
		{"File not found at 'e' (from relative path 'e')", "e", "File not found at '' (from relative path '')"},
		// A path that is one of the server's words takes it too: the
		// profile's other words ("no such file") still read.
		{"ENOENT: no such file, open 'ENOENT'", "ENOENT", ": no such file, open ''"},
		{"Access denied: ../appshop/x is outside", "../appshop/x", "Access denied:  is outside"},
		{"see /t/srv/app/d and d/e", "d", "see /t/srv/app/d and d/e"},
		{"d", "d", ""},
	} {
		if got := cutWord(tc.text, tc.p); got != tc.want {
			t.Errorf("cutWord(%q, %q) = %q, want %q", tc.text, tc.p, got, tc.want)
		}
	}
}

// TestListResultEmpty: a list with no item holds no content.
func TestListResultEmpty(t *testing.T) {
	if _, ok := (&Extract{JSON: "[].content"}).content(`[]`); ok {
		t.Error("content found in an empty list")
	}
	if got, ok := (&Extract{JSON: "[].content"}).content(`[{"content": "c"}, {"content": "d"}]`); !ok || got != "c" {
		t.Errorf("content of a list: %q %v, want the first item's", got, ok)
	}
}

// TestCutLines: a long line is cut after as many bytes (a character cut
// in two sent as a U+FFFD a byte, as Go's JSON encoder sends it) or UTF-16
// units as JavaScript counts them (never inside a character), and marked;
// a line no longer is left, and so are the line ends.
func TestCutLines(t *testing.T) {
	for _, tc := range []struct {
		cut  func(string, int) string
		most int
		want string
	}{
		{cutBytes, 3, "aé...\nabc\n\uFFFD\uFFFD\uFFFD...\n"},
		{cutUnits, 3, "aé€...\nabc\n😀b...\n"},
		{cutUnits, 2, "aé...\nab...\n😀...\n"},
	} {
		if got := cutLines("aé€😀b\nabc\n😀bc\n", tc.most, "...", tc.cut); got != tc.want {
			t.Errorf("cutLines(…, %d) = %q, want %q", tc.most, got, tc.want)
		}
	}
}
