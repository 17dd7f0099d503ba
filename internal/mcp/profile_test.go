package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

func TestParseProfile(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   Profile
		err    string
		reason string
	}{
		{
			in:     `{"name": "server-filesystem", "read": {"tool": "read_file", "path": "path"}, "write": {"tool": "write_file", "path": "path", "content": "content"}, "denied": ["Access denied", "outside allowed directories"], "not_found": ["ENOENT", "no such file"], "trims": true}`,
			want:   Filesystem,
			reason: "the built-in profile, written out",
		},
		{
			in:     `{"read": {"tool": "cat"}, "write": {"tool": "put"}}`,
			want:   Profile{Read: Tool{Name: "cat", Path: "path"}, Write: Tool{Name: "put", Path: "path", Content: "content"}},
			reason: "argument names default to path and content",
		},
		{
			in:     `{"read": {"tool": "cat", "path": "file"}, "dir_flag": "--allow"}`,
			want:   Profile{Read: Tool{Name: "cat", Path: "file"}, DirFlag: "--allow"},
			reason: "a read-only server",
		},
		{in: `{"name": "x"}`, err: "neither read nor write names a tool", reason: "no tool at all"},
		{in: `{"read": {"tool": "cat", "content": "c"}}`, err: "only write takes a content argument", reason: "content on a read"},
		{in: `{"write": {"tool": "put", "path": "a", "content": "a"}}`, err: `the same argument "a"`, reason: "one argument for both"},
		{in: `{"read": {"tool": "cat"}, "denied": [""]}`, err: "an empty pattern", reason: "a pattern that matches everything"},
		{in: `{"read": {"tool": "cat"}, "reed": 1}`, err: `line 1 column 27: json: unknown field "reed"`, reason: "a misspelt field"},
		{in: `{"read": {"tool": "cat"}, "described": ["a"]}`, err: `unknown field "described", which belongs in read.result`, reason: "a field of another part"},
		{in: `{"read": {"tool": "cat", "denied": ["no"]}}`, err: `unknown field "denied", which belongs at the profile's top level`, reason: "a top-level field in a tool"},
		{in: `{"dirs_config": {"file": "c.json", "sep": ","}, "read": {"tool": "cat"}}`, err: `unknown field "sep", which belongs in dirs_env`, reason: "a field of dirs_env in dirs_config"},
		{in: "{\n  \"read\": {\"tool\": \"cat\"},\n  \"denied\": [\"x\",]\n}", err: "line 3 column 18: invalid character ']'", reason: "a syntax error, placed"},
		{in: `{"read": {"tool": "cat"}} {}`, err: "data after the profile object", reason: "two objects"},
		{in: ``, err: "no JSON object: the file is empty", reason: "nothing"},
	} {
		got, err := ParseProfile([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrProfile) {
				t.Errorf("%s: error %v, want one saying %q that is ErrProfile", tc.reason, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.reason, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
		}
	}
}

func TestVerdictFromWords(t *testing.T) {
	hide := []string{"/t/work", "/t/work/ENOENT"} // a root before the op's path under it, which is cut out whole
	for _, tc := range []struct {
		text   string
		want   realfs.Verdict
		reason string
	}{
		{"Access denied - path outside allowed directories: /t/x not in /t/work", realfs.Denied, "current words"},
		{"Error: Access denied - symlink target outside allowed directories: /t/o", realfs.Denied, "old words"},
		{"ENOENT: no such file or directory, open '/t/work/x'", realfs.NotFound, "a missing file"},
		{"error: enoent", realfs.NotFound, "case is ignored"},
		{"Access denied - path outside allowed directories: /t/work/ENOENT not in /t/work", realfs.Denied, "both: a denial wins"},
		{"EACCES: permission denied, open '/t/work/ENOENT'", realfs.Refused, "the op's path is not the server's words"},
		{"Parent directory does not exist: /t/work/d", realfs.Refused, "words no list knows are a refusal: denial or missing file"},
	} {
		if got := Filesystem.verdict(tc.text, hide); got != tc.want {
			t.Errorf("%s: %q is %v, want %v", tc.reason, tc.text, got, tc.want)
		}
	}
}

func TestSupports(t *testing.T) {
	readOnly := Profile{Name: "ro", Read: Tool{Name: "cat", Path: "p"}}
	for _, tc := range []struct {
		p    Profile
		kind string
		want bool
	}{
		{Profile{}, core.OpRead, true},
		{Profile{}, core.OpWrite, true},
		{Profile{}, core.OpFetch, false},
		{Filesystem, core.OpTool, false},
		{readOnly, core.OpRead, true},
		{readOnly, core.OpWrite, false},
	} {
		if got := tc.p.Supports(tc.kind); got != tc.want {
			t.Errorf("profile %q supports %s: %v, want %v", tc.p.Name, tc.kind, got, tc.want)
		}
	}
}

// TestParseProfileShapes: the fields for real servers read, and what
// makes them unusable is refused.
func TestParseProfileShapes(t *testing.T) {
	good := `{"name": "g", "command": ["node"], "read": {"tool": "r", "result": {"json": "a.content"}},
		"write": {"tool": "w", "args": {"mode": "rewrite", "opts.create": false}},
		"dirs_config": {"file": ".cfg/c.json", "template": "{\"dirs\": {{dirs}}}"}, "env": {"A": "1"}, "refusals": ["^Error"]}`
	cwd := `{"read": {"tool": "r", "path": "paths[]", "result": {"json": "[].content"}}, "write": {"tool": "w", "path": "items[].path", "content": "items[].content"}, "cwd": true}`
	if _, err := ParseProfile([]byte(good)); err != nil {
		t.Errorf("a profile with every new field: %v", err)
	}
	if p, err := ParseProfile([]byte(cwd)); err != nil || !p.Cwd {
		t.Errorf("a profile of a server on its working directory, taking lists: %+v, %v", p, err)
	}
	for _, tc := range []struct{ in, err string }{
		{`{"read": {"tool": "r", "args": {"path": 1}}}`, `argument "path" is given twice`},
		{`{"write": {"tool": "w", "args": {"content.x": 1}}}`, `"content" is given twice`},
		{`{"write": {"tool": "w", "args": {"a": 1, "a.b": 2}}}`, `runs through "a", which is not an object`},
		{`{"read": {"tool": "r", "path": "a..b"}}`, "has an empty part"},
		{`{"read": {"tool": "r", "result": {"json": "a", "header": "("}}}`, "missing closing )"},
		{`{"read": {"tool": "r", "result": {"header": "("}}}`, "missing closing )"},
		{`{"read": {"tool": "r", "result": {"line_max": -1}}}`, "a line is cut after a positive length"},
		{`{"read": {"tool": "r", "result": {"line_mark": "..."}}}`, "line_mark without line_max"},
		{`{"read": {"tool": "r", "result": {"tab": "\t "}}}`, "holds a tab"},
		{`{"read": {"tool": "r", "result": {"line_prefix": " *\\d*\\t?"}}}`, "matches a line that has none"},
		{`{"read": {"tool": "r", "result": {"line_prefix": "("}}}`, "result line_prefix: error parsing"},
		{`{"read": {"tool": "r", "result": {"continuation": "\\n?"}}}`, "matches where the server broke no line"},
		{`{"read": {"tool": "r", "result": {"continuation": "["}}}`, "result continuation: error parsing"},
		{`{"write": {"tool": "w", "result": {"json": "a"}}}`, "result is for read"},
		{`{"read": {"tool": "r"}, "refusals": [".*"]}`, "matches every text"},
		{`{"read": {"tool": "r"}, "dirs_config": {"file": "../x", "template": "{{dirs}}"}}`, "not a path inside HOME"},
		{`{"read": {"tool": "r"}, "dirs_config": {"file": "x", "template": "{}"}}`, "has no {{dirs}}"},
		{`{"read": {"tool": "r"}, "dirs_config": {"file": "x", "template": "{{dirs}}"}, "dirs_env": {"name": "D"}}`, "dirs_config and dirs_env set"},
		{`{"read": {"tool": "r"}, "cwd": true, "dir_flag": "--allow"}`, "dir_flag and cwd set"},
		{`{"read": {"tool": "r"}, "cwd": true, "virtual_root": true}`, "cwd and virtual_root set"},
		{`{"read": {"tool": "r"}, "not_found": ["^Here's the files"]}`, `not regular expressions: "^Here's the files" would never be found`},
		{`{"read": {"tool": "r"}, "denied": ["denied.*path"]}`, `"denied.*path" would never be found`},
		{`{"read": {"tool": "r", "result": {"footer": "("}}}`, "result footer: error parsing"},
		{`{"read": {"tool": "r"}, "dirs_args": ["--allow-read={{dirs}}"], "dir_flag": "--allow"}`, "dir_flag and dirs_args set"},
		{`{"read": {"tool": "r"}, "dirs_args": ["--allow-read"]}`, `"--allow-read" has no {{dirs}}`},
		{`{"read": {"tool": "r"}, "dirs_args": []}`, "dirs_args: an empty list"},
		{`{"read": {"tool": "r"}, "dirs_sep": ":"}`, "dirs_sep: joins the directories of dirs_args, and there is none"},
		{`{"write": {"tool": "w", "path": "items[].path", "content": "items.content"}}`, `runs through "items", which is a list of one where another name has an object`},
		{`{"read": {"tool": "r", "path": "[].path"}}`, "has an empty part"},
		{`{"write": {"tool": "w", "path": "items[].path", "content": "items[].content", "args": {"items": []}}}`, `runs through "items", a list of 0 items where it names one`},
		{`{"read": {"tool": "r"}, "env": {"A=B": "1"}}`, "not a variable name"},
	} {
		_, err := ParseProfile([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrProfile) {
			t.Errorf("%s: error %v, want one saying %q that is ErrProfile", tc.in, err, tc.err)
		}
	}
}

// TestBuiltinProfiles: every built-in profile passes the checks a file's
// does, and is found by its name.
func TestBuiltinProfiles(t *testing.T) {
	for _, p := range BuiltinProfiles() {
		if err := p.check(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if got, ok := LookupProfile(p.Name); !ok || got.Name != p.Name {
			t.Errorf("LookupProfile(%q) = %q, %v", p.Name, got.Name, ok)
		}
	}
	if got, _ := DesktopCommander.Read.Result.content("[Reading 1 lines from start (total: 1 lines, 0 remaining)]\n\nabc"); got != "abc" {
		t.Errorf("desktop-commander's header left %q", got)
	}
}

// TestHeaderThenJSON: a read answered with a line of words and then a
// JSON object gives the object's field, with the header or without it;
// an answer that is no such object is taken whole, as the server said it.
func TestHeaderThenJSON(t *testing.T) {
	p, err := ParseProfile([]byte(`{"read": {"tool": "r", "result": {"header": "Result:\\s*", "json": "file.content"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text, want string
		found      bool
	}{
		{"Result:\n{\"file\": {\"content\": \"x\\n\"}}", "x\n", true},
		{`{"file": {"content": ""}}`, "", true},
		{"Result: no such file", "Result: no such file", false},
		{`Result: {"file": {}}`, `Result: {"file": {}}`, false},
	} {
		if got, found := p.Read.Result.content(tc.text); got != tc.want || found != tc.found {
			t.Errorf("content(%q) = %q, %v; want %q, %v", tc.text, got, found, tc.want, tc.found)
		}
	}
}
