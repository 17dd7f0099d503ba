package scenario

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/inert"
	"github.com/sbxfuzz/sbxfuzz/internal/token"
)

// arrowColumn is the column, in runes from 0, where "=>" starts on an op
// line whose op is at most maxAligned runes wide: SPEC §10's layout.
const (
	arrowColumn = 46
	maxAligned  = arrowColumn - 2
)

// Format returns the canonical text of s (see the package doc): the header
// comment, the header lines, then the ops, in sections separated by one
// blank line. Parse(Format(s)) equals s for every s that Parse returned.
// A scenario built in code prints as parseable text when its budgets and
// clock are non-negative, its DNS addresses valid, its expected kinds
// verdicts, and its comments text.
func (s *Scenario) Format() []byte {
	var sections [][]byte
	for _, sec := range [][]byte{appendComments(nil, s.Comment), s.appendHeader(nil), s.appendSteps(nil)} {
		if len(sec) > 0 {
			sections = append(sections, sec)
		}
	}
	return bytes.Join(sections, []byte("\n"))
}

// appendComments appends one "# text" line per comment line; a comment
// holding newlines becomes several lines.
func appendComments(b []byte, comments []string) []byte {
	for _, c := range comments {
		for line := range strings.SplitSeq(c, "\n") {
			line = strings.TrimRightFunc(line, unicode.IsSpace)
			b = append(b, '#')
			if line != "" {
				b = append(b, ' ')
				b = inert.Append(b, line)
			}
			b = append(b, '\n')
		}
	}
	return b
}

func (s *Scenario) appendHeader(b []byte) []byte {
	g, w := s.Grant, s.World
	for _, l := range []struct {
		what  string
		items []string
	}{{"fs_read", g.FSRead}, {"fs_write", g.FSWrite}, {"net", g.NetHosts}, {"tool", g.Tools}} {
		if len(l.items) > 0 {
			b = appendLine(b, "grant", l.what, l.items...)
		}
	}
	for _, v := range []struct {
		what      string
		got, dflt int64
	}{
		{"ops", g.MaxOps, defaultBudgets.MaxOps},
		{"wall", g.MaxWall, defaultBudgets.MaxWall},
		{"output", g.MaxOutputBytes, defaultBudgets.MaxOutputBytes},
	} {
		if v.got != v.dflt {
			b = appendLine(b, "budget", v.what, itoa(v.got))
		}
	}
	if w.Clock != defaultClock {
		b = appendLine(b, "clock", itoa(w.Clock.Start), itoa(w.Clock.Step))
	}
	for _, f := range w.Files {
		b = appendLine(b, "file", f.Path, f.Data)
	}
	for _, l := range w.Links {
		b = appendLine(b, "link", l.Path, l.Target)
	}
	for _, r := range w.Routes {
		word := "route"
		if r.Redirect {
			word = "redirect"
		}
		b = appendLine(b, word, r.Host, r.Path, r.Body)
	}
	for _, d := range w.DNS {
		addrs := make([]string, len(d.Addrs))
		for i, a := range d.Addrs {
			addrs[i] = a.String()
		}
		b = appendLine(b, "dns", d.Host, addrs...)
	}
	for _, t := range w.ToolOutputs {
		b = appendLine(b, "toolout", t.Name, t.Output)
	}
	return b
}

// appendLine appends a header line: the directive, then each token.
func appendLine(b []byte, directive, first string, rest ...string) []byte {
	b = append(b, directive...)
	b = append(b, ' ')
	b = token.AppendFormat(b, first)
	for _, t := range rest {
		b = append(b, ' ')
		b = token.AppendFormat(b, t)
	}
	return append(b, '\n')
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (s *Scenario) appendSteps(b []byte) []byte {
	for i, st := range s.Steps {
		if i > 0 && len(st.Comment) > 0 {
			b = append(b, '\n')
		}
		b = appendComments(b, st.Comment)
		start := len(b)
		b = appendOp(b, st.Op)
		if e := st.Expect; e != nil {
			pad := 1
			if w := utf8.RuneCount(b[start:]); w <= maxAligned {
				pad = arrowColumn - w
			}
			b = append(b, strings.Repeat(" ", pad)...)
			b = append(b, token.Arrow+" "...)
			b = append(b, e.Kind.String()...)
			if e.HasData {
				b = append(b, ' ')
				b = token.AppendFormat(b, e.Data)
			}
		}
		b = append(b, '\n')
	}
	return b
}

// appendOp appends an op's kind and arguments. A kind that is a header
// word is quoted so that it reads back as an op.
func appendOp(b []byte, op core.Op) []byte {
	if isHeaderWord(op.Kind) {
		b = strconv.AppendQuote(b, op.Kind)
	} else {
		b = token.AppendFormat(b, op.Kind)
	}
	for _, a := range op.Args {
		b = append(b, ' ')
		b = token.AppendFormat(b, a)
	}
	return b
}

// GoString returns the scenario's canonical text on lines of its own: what
// rapid and %#v print for a drawn scenario, readable and pasteable.
func (s *Scenario) GoString() string { return "scenario:\n" + string(s.Format()) }
