package mcp

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
)

// compiled caches the profiles' patterns, checked when a profile is: a
// Profile is a plain value, so it cannot hold them itself.
var compiled sync.Map // pattern -> *regexp.Regexp

func pattern(p string) *regexp.Regexp {
	if re, ok := compiled.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re, _ := compiled.LoadOrStore(p, regexp.MustCompile(p))
	return re.(*regexp.Regexp)
}

// MatchesAny reports whether text matches any of a profile's patterns
// (RE2, checked when the profile was loaded), each compiled once.
func MatchesAny(patterns []string, text string) bool {
	return slices.ContainsFunc(patterns, func(re string) bool { return pattern(re).MatchString(text) })
}

// refused reports whether the text of a successful call is a failure by
// the profile's refusal patterns.
func (p Profile) refused(text string) bool { return MatchesAny(p.Refusals, text) }

// describes reports whether the text of a successful read describes the
// file instead of giving its content (Extract.Described).
func (e *Extract) describes(text string) bool { return MatchesAny(e.Described, text) }

// content is the file content in the text of a successful read, as e
// says, and whether it was where e says: a text that is not the JSON
// object e names, or lacks its string field, is taken whole and reported,
// so the difference from the model shows the server's own words. A text
// without e's header is taken whole too (a server may leave the header
// out of an empty file).
func (e *Extract) content(text string) (string, bool) {
	s, ok := e.extract(text)
	if e != nil && e.Footer != "" {
		if loc := pattern(`(?:` + e.Footer + `)\z`).FindStringIndex(s); loc != nil {
			s = s[:loc[0]]
		}
	}
	if e != nil && e.Continuation != "" {
		s = pattern(e.Continuation).ReplaceAllLiteralString(s, "")
	}
	if e != nil && e.LinePrefix != "" {
		s = withoutLinePrefix(s, e.LinePrefix)
	}
	return s, ok
}

// withoutLinePrefix is s with what matches prefix at the start of each
// line cut out.
func withoutLinePrefix(s, prefix string) string {
	re := pattern(`\A(?:` + prefix + `)`)
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if loc := re.FindStringIndex(l); loc != nil {
			lines[i] = l[loc[1]:]
		}
	}
	return strings.Join(lines, "")
}

// extract is the content of text where e says it is (content), with
// its line prefixes still on: after the header, then in the JSON field.
func (e *Extract) extract(text string) (string, bool) {
	if e == nil {
		return text, true
	}
	rest := text
	if e.Header != "" {
		if loc := pattern(`\A(?:` + e.Header + `)`).FindStringIndex(text); loc != nil {
			rest = text[loc[1]:]
		}
	}
	if e.JSON == "" {
		return rest, true
	}
	var v any
	if err := json.Unmarshal([]byte(rest), &v); err != nil {
		return text, false
	}
	for _, k := range strings.Split(e.JSON, ".") {
		k, list := strings.CutSuffix(k, "[]")
		if k != "" {
			obj, ok := v.(map[string]any)
			if !ok {
				return text, false
			}
			v = obj[k]
		}
		if list {
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				return text, false
			}
			v = l[0]
		}
	}
	s, ok := v.(string)
	if !ok {
		return text, false
	}
	return s, true
}

// withoutRoot is text with every occurrence of the tree's root cut out: a
// server that echoes a file's absolute path then names its world path,
// the same in the run and its replay on another tree.
func withoutRoot(text, root string) string {
	if root == "" || root == "/" {
		return text
	}
	return strings.ReplaceAll(text, root, "")
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
