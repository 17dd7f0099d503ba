package reports

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format of a report or a kill table.
type Format string

// The formats of --format.
const (
	Text     Format = "text" // tables drawn with box characters, for a terminal
	Markdown Format = "md"   // GitHub-flavoured Markdown, for a pull request or a job summary
	JSON     Format = "json" // the fields of SPEC §11, indented
)

// Formats lists the formats in the order --format documents them.
func Formats() []Format { return []Format{Text, Markdown, JSON} }

// doc writes a rendered document in one of the table formats. It keeps
// the first write error and ignores later calls once one happened.
type doc struct {
	w   io.Writer
	md  bool
	err error
}

func newDoc(w io.Writer, f Format) (*doc, error) {
	switch f {
	case Text, Markdown:
		return &doc{w: w, md: f == Markdown}, nil
	}
	return nil, fmt.Errorf("reports: format %q is not a table format (want text or md)", f)
}

func (d *doc) printf(format string, args ...any) {
	if d.err == nil {
		_, d.err = fmt.Fprintf(d.w, format, args...)
	}
}

// heading writes a section title: "## title" in Markdown, the title and a
// rule in text.
func (d *doc) heading(level int, title string) {
	if d.md {
		d.printf("%s %s\n\n", strings.Repeat("#", level), title)
		return
	}
	rule := "="
	if level > 1 {
		rule = "-"
	}
	d.printf("%s\n%s\n\n", title, strings.Repeat(rule, utf8.RuneCountInString(title)))
}

// para writes a paragraph built with d.span and d.strong, which mark it
// up in Markdown only: the text of a paragraph is written as it is, so
// that a backquote or an asterisk of data (a sandbox's name in a
// reproduce line) is kept.
func (d *doc) para(s string) {
	d.printf("%s\n\n", s)
}

// warn writes a paragraph that must not be missed; s is data, made safe.
func (d *doc) warn(s string) {
	s = d.text(s)
	if d.md {
		d.printf("> [!WARNING]\n> **%s**\n\n", s)
		return
	}
	d.printf("WARNING: %s\n\n", s)
}

// text makes data safe in a cell or a paragraph: control bytes, invalid
// UTF-8 and other unprintable runes are written as Go escapes, so one value
// stays on one line; in Markdown, characters with a meaning there (| ends
// a cell, < opens HTML) are backslash-escaped too.
func (d *doc) text(s string) string {
	var b strings.Builder
	for i, r := range s {
		var esc string
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r)
			esc = q[1 : len(q)-1]
		case d.md && strings.ContainsRune("\\`*_[]<>|#&", r):
			b.WriteByte('\\')
		}
		if esc == "" {
			b.WriteRune(r)
			continue
		}
		if d.md {
			b.WriteByte('\\') // keep the escape's backslash visible
		}
		b.WriteString(esc)
	}
	return b.String()
}

// inert is data on one line of a terminal, outside a table: a sandbox's
// words (the tail of its stderr, an error message) with its control bytes
// written as escapes, as d.text writes them in a text table, so that none
// moves the cursor, clears the screen or starts a line of its own.
func inert(s string) string { return (&doc{}).text(s) }

// code is data set as code in a table cell: a Markdown code span, plain
// in text.
func (d *doc) code(s string) string { return d.codeSpan(s, true) }

// span is data set as code in a paragraph: a Markdown code span, plain in
// text.
func (d *doc) span(s string) string { return d.codeSpan(s, false) }

func (d *doc) codeSpan(s string, inTable bool) string {
	if !d.md {
		return d.text(s)
	}
	s = d.text(s)
	// A code span shows backslashes literally, so undo the escapes that
	// are not needed there. | must stay escaped inside a table, where
	// GitHub takes "\|" for "|" even in a code span; in a paragraph the
	// backslash would be shown.
	unescape := []string{`\\`, `\`, "\\`", "`", `\*`, `*`, `\_`, `_`, `\[`, `[`, `\]`, `]`,
		`\<`, `<`, `\>`, `>`, `\#`, `#`, `\&`, `&`}
	if !inTable {
		unescape = append(unescape, `\|`, `|`)
	}
	s = strings.NewReplacer(unescape...).Replace(s)
	// The fence is one backquote more than the longest run of them in s,
	// padded with a space where s holds one, so that none closes it.
	longest, run := 0, 0
	for _, c := range []byte(s) {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// strong is emphasis: bold in Markdown, upper case in text.
func (d *doc) strong(s string) string {
	if d.md {
		return "**" + s + "**"
	}
	return strings.ToUpper(s)
}

// column is one column of a table: its header, and whether it holds
// numbers (right-aligned).
type column struct {
	header  string
	numeric bool
}

// table renders rows under cols with tablewriter: the default renderer
// for text, the Markdown renderer for md. Headers keep their case. Cells
// must already be made safe (d.text, d.code).
func (d *doc) table(cols []column, rows [][]string) {
	if d.err != nil {
		return
	}
	header := make([]any, len(cols))
	align := make([]tw.Align, len(cols))
	for i, c := range cols {
		header[i] = c.header
		if !d.md {
			header[i] = wrapHeader(c.header)
		}
		align[i] = tw.AlignLeft
		if c.numeric {
			align[i] = tw.AlignRight
		}
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone), // prose wraps in d.prose, nothing else
	}
	if d.md {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(d.w, opts...)
	t.Header(header...)
	if err := t.Bulk(rows); err != nil {
		d.err = err
		return
	}
	if d.err = t.Render(); d.err == nil {
		d.printf("\n")
	}
}

// textCellMax is the widest a cell of prose grows in a text table before
// it wraps.
const textCellMax = 64

// prose is a long sentence of data in a cell (a finding's detail, a gap's
// explanation): made safe, and in text wrapped at word boundaries so a
// terminal table stays narrow. Markdown keeps it on one line, as a row must.
func (d *doc) prose(s string) string {
	s = d.text(s)
	if d.md || len(s) <= textCellMax {
		return s
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > textCellMax {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// wrapHeader breaks a long hyphenated or underscored header into lines of
// at most 12 bytes, so a text table of many columns stays narrow.
func wrapHeader(h string) string {
	const width = 12
	if len(h) <= width || strings.ContainsAny(h, " \n") {
		return h
	}
	var lines []string
	line := ""
	for _, part := range splitAfterAny(h, "-_") {
		if line != "" && len(line)+len(part) > width {
			lines = append(lines, line)
			line = ""
		}
		line += part
	}
	return strings.Join(append(lines, line), "\n")
}

// splitAfterAny splits s after each byte of seps.
func splitAfterAny(s, seps string) []string {
	var out []string
	for s != "" {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
