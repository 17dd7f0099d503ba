package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// Profile says how one MCP server maps the harness's file ops onto its
// tools and how to read its answers. The zero Profile stands for
// Filesystem wherever a Config takes one. A Profile is a plain value:
// copy it freely.
type Profile struct {
	// Name names the server in messages.
	Name string `json:"name"`
	// Read is the tool fs_read calls (Content unused); no Name: the
	// server cannot read, fs_read is unsupported.
	Read Tool `json:"read"`
	// Write is the tool fs_write calls; no Name: fs_write is unsupported.
	Write Tool `json:"write"`
	// DirFlag, when set, is put before each allowed directory appended to
	// the command (--allow DIR); empty: the directories are appended bare.
	DirFlag string `json:"dir_flag,omitempty"`
	// Denied lists substrings (matched ignoring case) of the error text of
	// a refusal.
	Denied []string `json:"denied"`
	// NotFound lists substrings (matched ignoring case) of the error text
	// of a missing file.
	NotFound []string `json:"not_found"`
}

// Tool is one tool and the names of its arguments.
type Tool struct {
	Name    string `json:"tool"`
	Path    string `json:"path,omitempty"`    // the argument holding the path
	Content string `json:"content,omitempty"` // the argument holding the data (writes)
}

// Filesystem is the built-in profile of @modelcontextprotocol/server-filesystem.
// It reads with read_file, the tool every release has (newer ones also
// have read_text_file, with the same handler), and takes the allowed
// directories as bare arguments. Its words for a denial and a missing
// file hold across releases: 2025.3.28 prefixes them with "Error: ",
// later releases do not.
var Filesystem = Profile{
	Name:     "server-filesystem",
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
		return Profile{}, profileError(data, dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Profile{}, profileError(data, dec.InputOffset(), errors.New("data after the profile object"))
	}
	p = p.defaulted()
	if err := p.check(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// profileError places err at a line and column of data: the offending
// byte of a syntax error, the name of an unknown field, else where the
// decoder stopped.
func profileError(data []byte, off int64, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset counts the offending byte
	} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.Index(data, []byte(f)); i >= 0 {
			off = int64(i)
		}
	}
	before := data[:max(0, min(int(off), len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("%w: line %d column %d: %v", ErrProfile, line, col, err)
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
	switch {
	case p.Read.Name == "" && p.Write.Name == "":
		return fmt.Errorf("%w: neither read nor write names a tool", ErrProfile)
	case p.Read.Content != "":
		return fmt.Errorf("%w: read takes no content argument (got %q)", ErrProfile, p.Read.Content)
	case p.Read.Name != "" && p.Read.Path == "", p.Write.Name != "" && (p.Write.Path == "" || p.Write.Content == ""):
		return fmt.Errorf("%w: a tool without its argument names", ErrProfile)
	case p.Write.Name != "" && p.Write.Path == p.Write.Content:
		return fmt.Errorf("%w: write's path and content are the same argument %q", ErrProfile, p.Write.Path)
	case slices.Contains(p.Denied, "") || slices.Contains(p.NotFound, ""):
		return fmt.Errorf("%w: an empty pattern matches every text", ErrProfile)
	}
	return nil
}

// orDefault is p, or Filesystem for the zero Profile.
func (p Profile) orDefault() Profile {
	if p.Name == "" && p.Read == (Tool{}) && p.Write == (Tool{}) && p.DirFlag == "" && p.Denied == nil && p.NotFound == nil {
		return Filesystem
	}
	return p
}

// Supports reports whether the profile can express ops of kind: fs_read
// when it has a read tool, fs_write when it has a write tool, nothing
// else (an MCP filesystem server has no network or tool ops to judge).
func (p Profile) Supports(kind string) bool {
	p = p.orDefault()
	switch kind {
	case core.OpRead:
		return p.Read.Name != ""
	case core.OpWrite:
		return p.Write.Name != ""
	}
	return false
}

// argv is command with the allowed directories appended as p passes them.
func (p Profile) argv(command, allowed []string) []string {
	argv := slices.Clone(command)
	for _, d := range allowed {
		if p.DirFlag != "" {
			argv = append(argv, p.DirFlag)
		}
		argv = append(argv, d)
	}
	return argv
}

// verdict classifies the error text of a failed call. Paths in hide (the
// op's own path, the allowed directories) are cut out first: the fuzzer
// names files "ENOENT" or "Access denied" too. A text that matches
// neither list is Refused: the server refused, in words the profile does
// not know ("Parent directory does not exist" means either), and the
// harness judges the disk, not the words.
func (p Profile) verdict(text string, hide []string) realfs.Verdict {
	hide = slices.Clone(hide)
	slices.SortFunc(hide, func(a, b string) int { return len(b) - len(a) })
	for _, h := range hide {
		if h != "" {
			text = strings.ReplaceAll(text, h, "")
		}
	}
	text = strings.ToLower(text)
	has := func(pats []string) bool {
		return slices.ContainsFunc(pats, func(s string) bool { return strings.Contains(text, strings.ToLower(s)) })
	}
	switch {
	case has(p.Denied):
		return realfs.Denied
	case has(p.NotFound):
		return realfs.NotFound
	}
	return realfs.Refused
}
