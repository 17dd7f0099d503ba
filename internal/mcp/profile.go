package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
)

// Profile says how one MCP server maps the harness's file ops onto its
// tools, how it is given its allowed directories, and how to read its
// answers. The zero Profile stands for Filesystem wherever a Config takes
// one. A Profile is a plain value: copy it, but do not change the maps and
// slices of one in use.
type Profile struct {
	// Name names the server in messages and reproduce lines.
	Name string `json:"name"`
	// Command is put before the --sut command: ["node"] runs a script.
	Command []string `json:"command,omitempty"`
	// Read is the tool fs_read calls (Content unused); no Name: the
	// server cannot read, fs_read is unsupported.
	Read Tool `json:"read,omitzero"`
	// Write is the tool fs_write calls; no Name: fs_write is unsupported.
	Write Tool `json:"write,omitzero"`
	// Fetch is the tool net_fetch calls, an agent's fetch tool, its Path
	// naming the argument that holds the URL; no Name: net_fetch is
	// unsupported. The door of fetch servers (package proxysut) sets it
	// from a profile of its own, which says how the granted hosts reach
	// the server: it is never read from a file profile.
	Fetch Tool `json:"-"`
	// DirFlag, when set, is put before each allowed directory appended to
	// the command (--allow DIR); empty: the directories are appended bare.
	// Unused when DirsConfig or DirsEnv is set.
	DirFlag string `json:"dir_flag,omitempty"`
	// DirsArgs, when set, are arguments put between Command and the --sut
	// command, in each of which {{dirs}} becomes the allowed directories
	// joined by DirsSep: one flag for them all, before the script it
	// runs (Deno's --allow-read={{dirs}}). An argument is left out when
	// there is no directory (Deno refuses an empty list).
	DirsArgs []string `json:"dirs_args,omitempty"`
	// DirsSep joins the directories in DirsArgs; empty is ",".
	DirsSep string `json:"dirs_sep,omitempty"`
	// DirsConfig, when set, gives the allowed directories in a file
	// rendered into the server's HOME instead of its arguments.
	DirsConfig *DirsConfig `json:"dirs_config,omitempty"`
	// DirsEnv, when set, gives the allowed directories in an environment
	// variable instead of the arguments.
	DirsEnv *DirsEnv `json:"dirs_env,omitempty"`
	// Cwd says that the server works on its working directory: it is
	// started in its one allowed directory, given no other way, and sent
	// each path relative to it ("notes/a.txt", "../appshop/x"). A grant
	// of more than one directory keeps its first.
	Cwd bool `json:"cwd,omitempty"`
	// VirtualRoot says that the server takes the paths under its one
	// allowed directory as the absolute paths of a namespace of its own,
	// that directory being "/" ("/notes/a.txt", and "/../appshop/x" for a
	// sibling of it), as a virtual file system does (deepagents'
	// virtualMode, VoltAgent's workspace). It is given the directory as
	// its profile says. A grant of more than one directory keeps its
	// first.
	VirtualRoot bool `json:"virtual_root,omitempty"`
	// HoldsDirs says that the server holds its allowed directories, not
	// their paths (a bind mount, a Landlock rule, a handle opened at its
	// start): it is reused only while each is the directory it was given,
	// and restarted once one was made anew. A Cwd server holds its
	// directory whatever this says.
	HoldsDirs bool `json:"holds_dirs,omitempty"`
	// OwnNames are the names of entries a server keeps for itself in its
	// directories (obsidian-mcp's ".obsidian-mcp", made when it starts):
	// the restore between scenarios leaves them where they stand in a
	// directory it keeps, the observer does not look into them, and no
	// scenario's path passes through one.
	OwnNames []string `json:"own_names,omitempty"`
	// Env is set in the server's environment, over the harness's own.
	Env map[string]string `json:"env,omitempty"`
	// Denied lists substrings (matched ignoring case) of the error text of
	// a refusal.
	Denied []string `json:"denied,omitempty"`
	// NotFound lists substrings (matched ignoring case) of the error text
	// of a missing file.
	NotFound []string `json:"not_found,omitempty"`
	// Refusals lists regular expressions (RE2) of the text of a result
	// without isError that is a failure all the same: a server that says
	// "Error: access denied" as a success.
	Refusals []string `json:"refusals,omitempty"`
	// Trims says that the server strips white space and a quote from
	// each end of a path before it checks it: it then acts on another
	// path than the one asked, a policy of its own, so its answer to an
	// op on such a path is not judged (see Trimmed), only what it did: a
	// server that checks the path as asked and then trims it may open
	// another, out of its directories.
	Trims bool `json:"trims,omitempty"`
	// DotDot says to send the server paths with ".." as drawn, where
	// without it they are never sent. A server's answer to such a path is
	// a policy of its own (most clean the ".." out, then check the clean
	// path), so it is not compared with the model's; what the server did
	// is judged: any change to the tree other than the write the clean
	// path allows, where the world's links lead it, and any forbidden
	// content it returns, is a finding (a check of the clean path and an
	// open of the raw one write through a link's parent: "d/../x" with d
	// a link out). A scenario ends at its first such op, since what the
	// server did is not what the model did.
	DotDot bool `json:"dotdot,omitempty"`
	// Lands says that the server judges where an op lands, not the path
	// asked: it resolves links before its check (or runs in a mount
	// namespace of its roots). A read or write of a path outside the
	// roots that the world's links lead under one is then allowed,
	// harmlessly; SPEC §5 denies it for the path asked. Such an op is
	// counted, not judged, and answered as the model does.
	Lands bool `json:"lands,omitempty"`
	// Promises lists what the server promises to allow of what the
	// model allows, by the reason a refusal of it is counted under
	// ("dangling-write", "read-through-link", ...; "all" for every
	// reason): a refusal of such an op is a verdict-matches-model
	// finding. Any other refusal of an op the model allows is stricter,
	// not broken (SPEC §14): counted and listed, not judged. Empty: the
	// server promises nothing.
	Promises []string `json:"promises,omitempty"`
}

// Trimmed reports whether a server that trims paths (Profile.Trims) would
// act on another path than p: p begins or ends with white space (as
// JavaScript's String.prototype.trim sees it) or a quote.
func Trimmed(p string) bool { return Trim(p) != p }

// Trim is p as a server that trims paths (Profile.Trims) reads it: white
// space (as JavaScript's String.prototype.trim sees it) and quotes taken
// from each end, until none is left there.
func Trim(p string) string {
	space := func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' || r == '"' || r == '\'' }
	return strings.TrimFunc(p, space)
}

// Tool is one tool and its arguments.
type Tool struct {
	Name string `json:"tool"`
	// Path and Content name the arguments holding the path and the data
	// (writes); a dotted name ("file.path") nests them in objects, a
	// part ending in "[]" in a list of one ("paths[]", "items[].path").
	Path    string `json:"path,omitempty"`
	Content string `json:"content,omitempty"`
	// Args are constant arguments, by dotted name, each a JSON value:
	// {"mode": "rewrite", "create_dirs": false}.
	Args map[string]json.RawMessage `json:"args,omitempty"`
	// Result says where a read's content sits in its answer; nil: the
	// whole text.
	Result *Extract `json:"result,omitempty"`
}

// Extract says where a read's content sits in the text of its answer:
// after Header, in the JSON field JSON of what follows it, or both.
type Extract struct {
	// JSON is the dotted name of the string field holding the content
	// when the text is a JSON object: {"content": "...", "path": "/abs"}.
	// A part ending in "[]" takes the first item of a list: "[].content"
	// for [{"path": "a", "content": "..."}].
	JSON string `json:"json,omitempty"`
	// Header is a regular expression (RE2) matched at the start of the
	// text; the content is what follows the match ("[Reading 3 lines]" and
	// its newlines). A text it does not match is taken whole.
	Header string `json:"header,omitempty"`
	// Lines says that the server reads a file line by line and joins
	// the lines with "\n": the content it returns has lost the file's
	// final newline and has "\n" for each "\r\n". Content that differs
	// from the file on the disk by no more than that is taken as the
	// file's: a server that drops a newline has not read another file,
	// and the model compares bytes.
	Lines bool `json:"lines,omitempty"`
	// LineMax says that the server cuts each line longer than LineMax to
	// its first LineMax bytes (or UTF-16 units, as JavaScript counts)
	// followed by LineMark ("..." when empty), as agent file tools do with
	// lines of 2,000: content that differs from the file on the disk by
	// no more than that is taken as the file's.
	LineMax  int    `json:"line_max,omitempty"`
	LineMark string `json:"line_mark,omitempty"`
	// Tab says that the server shows each tab of a file as this text
	// (Strands Agents' file editor shows eight spaces): content that
	// differs from the file on the disk by no more than that is taken as
	// the file's.
	Tab string `json:"tab,omitempty"`
	// LinePrefix is a regular expression (RE2) of what the server puts
	// before each line of the content, a line number as "cat -n" writes
	// it (" *\\d+\\t" in a profile's JSON): it is cut from the start of
	// each line that begins with it, before the content is compared with
	// the file.
	LinePrefix string `json:"line_prefix,omitempty"`
	// Continuation is a regular expression (RE2) of what the server puts
	// where it breaks a long line of the file in two, a line break and a
	// mark ("\n *\\d+\\.\\d+\t" in a profile's JSON for VoltAgent's
	// "   1.1\t"): cut wherever it matches, before LinePrefix is.
	Continuation string `json:"continuation,omitempty"`
	// Footer is a regular expression (RE2) matched at the end of the
	// content, cut off: what a server adds after a file's lines ("Total
	// lines in file: 3").
	Footer string `json:"footer,omitempty"`
	// Described lists regular expressions (RE2) of an answer that
	// describes the file instead of giving its content ("Image file:
	// /data/a.png (image/png)"): the server read the file, so the read is
	// taken to have given the file's bytes as they are on the disk, its
	// verdict judged, and a forbidden file's canary found in them.
	Described []string `json:"described,omitempty"`
}

// DirsConfig is a file the allowed directories are written into, in the
// server's own HOME (a fresh directory per server, removed with it).
type DirsConfig struct {
	// File is the file's path relative to HOME.
	File string `json:"file"`
	// Template is the file's text, in which every {{dirs}} becomes the
	// JSON list of the allowed directories.
	Template string `json:"template"`
}

// DirsEnv is an environment variable that holds the allowed directories.
type DirsEnv struct {
	Name string `json:"name"`
	// Sep joins the directories; empty is the system's path list
	// separator (":" on Unix).
	Sep string `json:"sep,omitempty"`
}

// DirsPlaceholder is what a DirsConfig template holds where the JSON list
// of allowed directories goes.
const DirsPlaceholder = "{{dirs}}"

// Filesystem is the built-in profile of @modelcontextprotocol/server-filesystem.
// It reads with read_file, the tool every release has (newer ones also
// have read_text_file, with the same handler), and takes the allowed
// directories as bare arguments. Its words for a denial and a missing
// file hold across releases: 2025.3.28 prefixes them with "Error: ",
// later releases do not. Later releases also trim a path (normalizePath)
// before they check it.
var Filesystem = Profile{
	Name:     "server-filesystem",
	Trims:    true,
	Read:     Tool{Name: "read_file", Path: "path"},
	Write:    Tool{Name: "write_file", Path: "path", Content: "content"},
	Denied:   []string{"Access denied", "outside allowed directories"},
	NotFound: []string{"ENOENT", "no such file"},
}

// ErrProfile is what every profile error unwraps to.
var ErrProfile = errors.New("bad MCP profile")

// ParseProfile reads a profile written as JSON: the fields of Profile
// under their JSON names, unknown fields refused. An argument name left
// out defaults to "path" and "content". At least one of read and write
// must name a tool. Errors unwrap to ErrProfile and say where.
func ParseProfile(data []byte) (Profile, error) {
	var p Profile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Profile{}, profileError(data, dec.InputOffset(), err, &p)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Profile{}, profileError(data, dec.InputOffset(), errors.New("data after the profile object"), &p)
	}
	p = p.defaulted()
	if err := p.check(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// NewFetchProfile is the profile of a server judged on one tool, fetch
// (Profile.Fetch), with env set in its environment. It fails, unwrapping
// to ErrProfile, for a tool whose arguments do not check.
func NewFetchProfile(name string, fetch Tool, env map[string]string) (Profile, error) {
	if fetch.Name == "" {
		return Profile{}, fmt.Errorf("%w: no fetch tool named", ErrProfile)
	}
	p := Profile{Name: name, Fetch: fetch, Env: env}
	if err := p.check(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// profileError places err, met decoding data into into, at a line and
// column of data: the offending byte of a syntax error, the name of an
// unknown field, else where the decoder stopped. An unknown field that a
// profile has elsewhere is said to belong there.
func profileError(data []byte, off int64, err error, into any) error {
	belongs := ""
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if place := fieldPlace(strings.Trim(f, `"`)); place != "" {
			belongs = ", which belongs " + place
		}
	}
	return fmt.Errorf("%w: %v%s", ErrProfile, door.JSONError(data, off, err, into), belongs)
}

// fieldPlace is where a field of a profile's JSON named field belongs, in
// words ("in read.result"), or "" for a name no part of a profile has.
func fieldPlace(field string) string {
	for _, part := range []struct {
		place string
		t     reflect.Type
	}{
		{"at the profile's top level", reflect.TypeFor[Profile]()},
		{"in read or write", reflect.TypeFor[Tool]()},
		{"in read.result", reflect.TypeFor[Extract]()},
		{"in dirs_config", reflect.TypeFor[DirsConfig]()},
		{"in dirs_env", reflect.TypeFor[DirsEnv]()},
	} {
		for i := range part.t.NumField() {
			if name, _, _ := strings.Cut(part.t.Field(i).Tag.Get("json"), ","); name == field {
				return part.place
			}
		}
	}
	return ""
}

// defaulted fills the argument names a profile may leave out.
func (p Profile) defaulted() Profile {
	if p.Read.Name != "" && p.Read.Path == "" {
		p.Read.Path = "path"
	}
	if p.Write.Name != "" && p.Write.Path == "" {
		p.Write.Path = "path"
	}
	if p.Write.Name != "" && p.Write.Content == "" {
		p.Write.Content = "content"
	}
	return p
}

// check reports what makes p unusable.
func (p Profile) check() error {
	for _, n := range p.OwnNames {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			return fmt.Errorf("%w: own_names: %q is no name of a directory's entry", ErrProfile, n)
		}
	}
	switch {
	case p.Read.Name == "" && p.Write.Name == "" && p.Fetch.Name == "":
		return fmt.Errorf("%w: neither read nor write names a tool", ErrProfile)
	case p.Read.Content != "":
		return fmt.Errorf("%w: only write takes a content argument (read has %q)", ErrProfile, p.Read.Content)
	case p.Fetch.Content != "":
		return fmt.Errorf("%w: only write takes a content argument (fetch has %q)", ErrProfile, p.Fetch.Content)
	case p.Write.Result != nil:
		return fmt.Errorf("%w: write has no content to find in its answer (result is for read)", ErrProfile)
	case p.Read.Name != "" && p.Read.Path == "", p.Write.Name != "" && (p.Write.Path == "" || p.Write.Content == ""), p.Fetch.Name != "" && p.Fetch.Path == "":
		return fmt.Errorf("%w: a tool without its argument names", ErrProfile)
	case p.Write.Name != "" && p.Write.Path == p.Write.Content:
		return fmt.Errorf("%w: write's path and content are the same argument %q", ErrProfile, p.Write.Path)
	case slices.Contains(p.Denied, "") || slices.Contains(p.NotFound, ""):
		return fmt.Errorf("%w: an empty pattern matches every text", ErrProfile)
	case regexpWord(p.Denied, p.NotFound) != "":
		return fmt.Errorf("%w: denied and not_found are words found anywhere in a refusal's text, case ignored, not regular expressions: %q would never be found (refusals are regular expressions)", ErrProfile, regexpWord(p.Denied, p.NotFound))
	case p.DirsConfig != nil && p.DirsEnv != nil, p.Cwd && (p.DirsConfig != nil || p.DirsEnv != nil || p.DirFlag != ""), len(p.DirsArgs) > 0 && len(p.dirWays()) > 1:
		return fmt.Errorf("%w: %s set: the directories go one way", ErrProfile, strings.Join(p.dirWays(), " and "))
	case p.Cwd && p.VirtualRoot:
		return fmt.Errorf("%w: cwd and virtual_root set: a path is spelled one way", ErrProfile)
	}
	for _, t := range []Tool{p.Read, p.Write, p.Fetch} {
		if err := t.check(); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrProfile, t.Name, err)
		}
	}
	for _, re := range p.Refusals {
		if err := checkRegexp("refusals", re); err != nil {
			return err
		}
	}
	if err := p.checkLaunch(); err != nil {
		return fmt.Errorf("%w: %v", ErrProfile, err)
	}
	return nil
}

// regexpWord is the first word among lists written as a regular
// expression would be (anchored with ^ or $, or holding .*), which a
// search for the word in a text never finds, or "".
func regexpWord(lists ...[]string) string {
	for _, l := range lists {
		for _, w := range l {
			if strings.HasPrefix(w, "^") || strings.HasSuffix(w, "$") || strings.Contains(w, ".*") {
				return w
			}
		}
	}
	return ""
}

// dirWays names the fields of p that say how the allowed directories
// reach the server.
func (p Profile) dirWays() []string {
	var ways []string
	for _, w := range []struct {
		name string
		set  bool
	}{{"dir_flag", p.DirFlag != ""}, {"dirs_args", len(p.DirsArgs) > 0}, {"dirs_config", p.DirsConfig != nil}, {"dirs_env", p.DirsEnv != nil}, {"cwd", p.Cwd}} {
		if w.set {
			ways = append(ways, w.name)
		}
	}
	return ways
}

// checkRegexp reports a pattern that does not compile or matches every
// text.
func checkRegexp(field, pat string) error {
	re, err := regexp.Compile(pat)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrProfile, field, err)
	case re.MatchString("") && field == "refusals":
		return fmt.Errorf("%w: %s: %q matches every text", ErrProfile, field, pat)
	}
	return nil
}

// orDefault is p, or Filesystem for the zero Profile.
func (p Profile) orDefault() Profile {
	if reflect.ValueOf(p).IsZero() {
		return Filesystem
	}
	return p
}

// Supports reports whether the profile can express ops of kind: fs_read
// when it has a read tool, fs_write when it has a write tool, net_fetch
// when it has a fetch tool, nothing else.
func (p Profile) Supports(kind string) bool {
	p = p.orDefault()
	switch kind {
	case core.OpRead:
		return p.Read.Name != ""
	case core.OpWrite:
		return p.Write.Name != ""
	case core.OpFetch:
		return p.Fetch.Name != ""
	}
	return false
}

// FastFilesystem is the built-in profile of fast-filesystem-mcp: its
// answers are JSON objects ({"content": ..., "path": "/abs/path", ...}),
// its directories come after --allow, and its writes create missing
// parents and strip emojis unless told not to. It also allows $HOME and
// /tmp by default: the server's HOME is one of its own (Start), and the
// trees are never under /tmp.
var FastFilesystem = Profile{
	Name:     "fast-filesystem-mcp",
	Read:     Tool{Name: "fast_read_file", Path: "path", Result: &Extract{JSON: "content"}},
	Write:    Tool{Name: "fast_write_file", Path: "path", Content: "content", Args: map[string]json.RawMessage{"create_dirs": json.RawMessage("false"), "append": json.RawMessage("false")}},
	DirFlag:  "--allow",
	Denied:   []string{"Access denied"},
	NotFound: []string{"ENOENT", "no such file"},
}

// DesktopCommander is the built-in profile of
// @wonderwhy-er/desktop-commander: its allowed directories are read from
// ~/.claude-server-commander/config.json, a read's text starts with a
// header line ("[Reading 3 lines from start (total: 3 lines, 0
// remaining)]") and a blank line, then the file's lines (Extract.Lines),
// at most 1,000 of them unless a length is given; an image, a PDF or a
// Word document is described rather than given; a directory read, and a
// PDF it cannot parse, are refused in a successful result; a write takes
// a mode.
var DesktopCommander = Profile{
	Name: "desktop-commander",
	Read: Tool{Name: "read_file", Path: "path", Args: map[string]json.RawMessage{"length": json.RawMessage("100000000")},
		Result: &Extract{Header: `\[Reading [^\]\n]*\]\r?\n(?:\r?\n)?`, Lines: true,
			Described: []string{`\AImage file: `, `\APDF file: `, `\ADOCX `}}},
	Write: Tool{Name: "write_file", Path: "path", Content: "content", Args: map[string]json.RawMessage{"mode": json.RawMessage(`"rewrite"`)}},
	DirsConfig: &DirsConfig{
		File:     ".claude-server-commander/config.json",
		Template: `{"allowedDirectories": {{dirs}}, "blockedCommands": [], "telemetryEnabled": false}`,
	},
	Refusals: []string{`\AThis is a directory, not a file`, `\AError reading PDF: `},
	Denied:   []string{"Path not allowed", "Access denied"},
	NotFound: []string{"ENOENT", "no such file", "This is a directory, not a file"},
}

// AgentInfraFilesystem is the built-in profile of
// @agent-infra/mcp-server-filesystem, a bundled fork of an early
// server-filesystem: the same tools and words, the whole text of a read
// its content, its directories each after --allowed-directories. It logs
// every path it checks on stdout (console.log), which the client skips.
var AgentInfraFilesystem = Profile{
	Name:     "agent-infra-filesystem",
	Read:     Tool{Name: "read_file", Path: "path"},
	Write:    Tool{Name: "write_file", Path: "path", Content: "content"},
	DirFlag:  "--allowed-directories",
	Denied:   []string{"Access denied", "outside allowed directories"},
	NotFound: []string{"ENOENT", "no such file"},
}

// MCPServerFilesystem is the built-in profile of the npm package
// mcp-server-filesystem, a fork of an early server-filesystem: the same
// tools, its directories bare arguments, its error texts prefixed with
// "Error: ". It compares paths in lower case.
var MCPServerFilesystem = Profile{
	Name:     "mcp-server-filesystem",
	Read:     Tool{Name: "read_file", Path: "path"},
	Write:    Tool{Name: "write_file", Path: "path", Content: "content"},
	Denied:   []string{"Access denied", "outside allowed directories"},
	NotFound: []string{"ENOENT", "no such file"},
}

// BuiltinProfiles are the profiles a --profile value may name instead of
// a file, by Name.
func BuiltinProfiles() []Profile {
	return []Profile{Filesystem, FastFilesystem, DesktopCommander, AgentInfraFilesystem, MCPServerFilesystem}
}

// BuiltinNames are the names of BuiltinProfiles, in their order.
func BuiltinNames() []string {
	var names []string
	for _, p := range BuiltinProfiles() {
		names = append(names, p.Name)
	}
	return names
}

// LookupProfile returns the built-in profile named name.
func LookupProfile(name string) (Profile, bool) {
	for _, p := range BuiltinProfiles() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}
