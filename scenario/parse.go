package scenario

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark.
var utf8BOM = []byte("\ufeff")

// isHeaderWord reports whether w is the directive of a header line. As an
// op kind, one must be quoted. (A switch, not a map: the parser asks it of
// every line.)
func isHeaderWord(w string) bool {
	switch w {
	case "grant", "budget", "clock", "file", "route", "redirect", "dns", "toolout", "link":
		return true
	}
	return false
}

// Parse reads the .sbx text src, starting from New's defaults. name is
// used in error messages only. Every error is a *ParseError, reading
// `name:line: reason (near "token")`, that unwraps to one of this package's
// sentinels or to core.ErrInvalidGrant. Parse never panics.
//
// One UTF-8 byte-order mark (EF BB BF) at the start of src, as some editors
// write, is ignored; line numbers are unchanged. Format never writes one,
// and a byte-order mark anywhere else is part of a token.
func Parse(name string, src []byte) (*Scenario, error) {
	p := newParser(name, string(bytes.TrimPrefix(src, utf8BOM)), New())
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.s, nil
}

// Parser is Parse with memory kept from one call to the next: for a caller
// that parses many inputs one after another and is done with each scenario
// before it parses the next. A fuzz target is one: it parses an input per
// exec, and fresh lists for every scenario would be most of what parsing
// costs. The zero Parser is ready to use. A Parser is not safe for
// concurrent use.
type Parser struct {
	sc      Scenario // what the latest call returned
	mem     Scenario // what each call parses into, its lists kept with their room; sc is it with the empty lists nil
	lexed   lexed
	args    []string
	notes   []string
	expects []Expect
	head    head // the last source's header
}

// head is the header of the source a Parser parsed last: the text up to
// its first op line, and the state parsing it left. Sources of a fuzzing
// run are mostly mutations of one, and mutations in the ops leave the
// header alone: a source that starts with the same header resumes from
// that state (the header's lists are still in Parser.mem; the ops never
// write them), and only its ops are copied and parsed.
type head struct {
	text  string // "" for none: the last source had no op, or its header failed
	lines int    // the lines of text
	notes int    // the comment lines pending after it: Parser.notes[:notes]
}

// Parse is the package's Parse, into p's memory: the scenario it returns,
// and every list and step in it, is p's, and the next call overwrites it.
// Clone it to keep it. Only the source is copied afresh (or, when it
// starts with the last one's header, its ops): the scenario's strings are
// substrings of the copies (or unquoted tokens), and stay valid.
func (p *Parser) Parse(name string, src []byte) (*Scenario, error) {
	src = bytes.TrimPrefix(src, utf8BOM)
	h := p.head
	resume := h.text != "" && len(src) >= len(h.text) && string(src[:len(h.text)]) == h.text
	// The parse writes into p.mem, whose lists keep their room from call
	// to call, emptied in place (a Scenario is some forty words: building
	// one aside and copying it in, and back, were two bulk copies a
	// parse). p.sc is then its copy with the empty lists nil.
	var st parser
	if resume {
		p.mem.Steps = p.mem.Steps[:0]
		st = newParser(name, string(src[len(h.text):]), &p.mem)
		st.line, st.notes = h.lines, p.notes[:h.notes]
	} else {
		p.mem.reset()
		st = newParser(name, string(src), &p.mem)
		st.notes = p.notes[:0]
	}
	st.lexed, st.args, st.expects = p.lexed, p.args[:0], p.expects[:0]
	err := st.run()
	p.lexed, p.args, p.notes, p.expects = st.lexed, st.args, st.notes, st.expects
	switch {
	case st.opsAt < 0:
		p.head = head{}
	case !resume:
		p.head = head{text: st.text[:st.opsAt], lines: st.opsLine, notes: st.opsNote}
	case st.opsAt > 0:
		p.head = head{} // header lines after the resumed one: parse the next source whole
	}
	p.sc = p.mem
	p.sc.dropEmpty()
	if err != nil {
		return nil, err
	}
	return &p.sc, nil
}

// reset empties s's lists in place, keeping their room, and sets New's
// defaults: the scenario a parse starts from.
func (s *Scenario) reset() {
	g, w := &s.Grant, &s.World
	s.Comment = s.Comment[:0]
	g.FSRead, g.FSWrite, g.NetHosts, g.Tools = g.FSRead[:0], g.FSWrite[:0], g.NetHosts[:0], g.Tools[:0]
	g.Budgets = defaultBudgets
	w.Files, w.Routes, w.DNS, w.ToolOutputs, w.Links = w.Files[:0], w.Routes[:0], w.DNS[:0], w.ToolOutputs[:0], w.Links[:0]
	w.Clock = defaultClock
	s.Steps = s.Steps[:0]
}

// dropEmpty sets s's empty lists to nil, as Parse leaves them.
func (s *Scenario) dropEmpty() {
	g, w := &s.Grant, &s.World
	nilIfEmpty(&s.Comment)
	nilIfEmpty(&g.FSRead)
	nilIfEmpty(&g.FSWrite)
	nilIfEmpty(&g.NetHosts)
	nilIfEmpty(&g.Tools)
	nilIfEmpty(&w.Files)
	nilIfEmpty(&w.Routes)
	nilIfEmpty(&w.DNS)
	nilIfEmpty(&w.ToolOutputs)
	nilIfEmpty(&w.Links)
	nilIfEmpty(&s.Steps)
}

func nilIfEmpty[T any](l *[]T) {
	if len(*l) == 0 {
		*l = nil
	}
}

// parser is the state of one Parse.
type parser struct {
	name    string
	s       *Scenario
	text    string // the whole source
	checked bool   // text is text (isText): its lines need no check
	line    int
	start   int      // the offset in text where the current line starts
	off     int      // the offset in text just past the current line
	inOps   bool     // an op has been seen: header lines are over
	opsAt   int      // the offset of the first op line, -1 before it
	opsLine int      // the lines before the first op line
	opsNote int      // the comment lines pending before the first op line
	lexed   lexed    // the current line, lexed: every line is lexed into it
	args    []string // room for op arguments: each op's are a capped slice of it
	notes   []string // room for comment lines: each op's are a capped slice of it
	pending int      // notes[pending:] are the comment lines not yet given to a step or the header
	expects []Expect // room for expectations: each op's points into it
}

// newParser returns the state that parses text, the source without its
// byte-order mark, into s. Every token is a substring of text.
func newParser(name string, text string, s *Scenario) parser {
	return parser{name: name, s: s, text: text, checked: isText(text), opsAt: -1}
}

// run parses every line of the source.
func (p *parser) run() error {
	if p.checked {
		p.lexed.src = p.text // every line is lexed in place
	}
	for p.off < len(p.text) {
		p.start = p.off
		p.line++
		var lerr *lexError
		if p.checked {
			// The whole source is text: lex the line in place, and
			// learn its end from the lexer.
			var end int
			end, lerr = lexLine(p.text, p.off, &p.lexed)
			p.off = min(end+1, len(p.text)) // past the newline
		} else {
			line := p.text[p.off:lineEnd(p.text, p.off)]
			p.off = min(p.off+len(line)+1, len(p.text))
			if err := checkText(line); err != nil {
				return &ParseError{File: p.name, Line: p.line, Err: err}
			}
			p.lexed.src = line
			if _, lerr = lexLine(line, 0, &p.lexed); lerr == nil {
				if err := checkBreaks(line, p.lexed.code); err != nil {
					return &ParseError{File: p.name, Line: p.line, Err: err}
				}
			}
		}
		if lerr != nil {
			return &ParseError{File: p.name, Line: p.line, Near: lerr.near, Err: lerr.err}
		}
		if err := p.parseLine(); err != nil {
			return err
		}
	}
	if !p.inOps {
		p.flushHeaderComment()
	}
	return nil
}

// val returns the value of t, a token of the current line.
func (p *parser) val(t tok) string { return p.lexed.val(t) }

// isArrow reports whether t, a token of the current line, is the bare
// arrow.
func (p *parser) isArrow(t tok) bool { return p.lexed.isArrow(t) }

func (p *parser) errorf(near string, sentinel error, format string, args ...any) *ParseError {
	return &ParseError{File: p.name, Line: p.line, Near: near,
		Err: fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))}
}

// parseLine parses the current line, lexed into p.lexed.
func (p *parser) parseLine() error {
	l := &p.lexed
	switch {
	case l.comment:
		p.notes = append(p.notes, l.text)
		return nil
	case len(l.toks) == 0:
		if !p.inOps {
			p.flushHeaderComment() // a blank line ends a header comment block
		}
		return nil
	}
	first, word := l.toks[0], p.val(l.toks[0])
	switch {
	case !first.quoted && isHeaderWord(word):
		if p.inOps {
			return p.errorf(word, ErrHeaderAfterOp, "%s must come before the first op", word)
		}
		p.flushHeaderComment()
		return p.header(word, l.toks[1:])
	case p.isArrow(first):
		return p.errorf(word, ErrArgs, "an op line needs a kind before =>")
	}
	return p.op(l.toks)
}

// flushHeaderComment moves the pending comment lines to the header
// comment, and gives their room back.
func (p *parser) flushHeaderComment() {
	p.s.Comment = append(p.s.Comment, p.notes[p.pending:]...)
	p.notes = p.notes[:p.pending]
}

// takeComment returns the pending comment lines, nil for none, for a step:
// a slice of p.notes capped at its length, as newArgs's are.
func (p *parser) takeComment() []string {
	if len(p.notes) == p.pending {
		return nil
	}
	c := p.notes[p.pending:len(p.notes):len(p.notes)]
	p.pending = len(p.notes)
	return c
}

// header parses the arguments of one header directive.
func (p *parser) header(word string, args []tok) error {
	switch word {
	case "grant":
		return p.grant(args)
	case "budget":
		return p.budget(args)
	case "clock":
		if err := p.arity(word, args, "START STEP"); err != nil {
			return err
		}
		start, err := p.number(args[0])
		if err != nil {
			return err
		}
		step, err := p.number(args[1])
		if err != nil {
			return err
		}
		p.s.World.Clock = TickClock{Start: start, Step: step}
	case "file":
		if err := p.arity(word, args, "PATH DATA"); err != nil {
			return err
		}
		p.s.World.Files = append(p.s.World.Files, File{Path: p.val(args[0]), Data: p.val(args[1])})
	case "route":
		if err := p.arity(word, args, "HOST PATH BODY"); err != nil {
			return err
		}
		p.s.World.Routes = append(p.s.World.Routes,
			Route{Host: p.val(args[0]), Path: p.val(args[1]), Body: p.val(args[2])})
	case "redirect":
		if err := p.arity(word, args, "HOST PATH URL"); err != nil {
			return err
		}
		p.s.World.Routes = append(p.s.World.Routes,
			Route{Host: p.val(args[0]), Path: p.val(args[1]), Body: p.val(args[2]), Redirect: true})
	case "dns":
		return p.dns(args)
	case "link":
		if err := p.arity(word, args, "PATH TARGET"); err != nil {
			return err
		}
		p.s.World.Links = append(p.s.World.Links, Link{Path: p.val(args[0]), Target: p.val(args[1])})
	case "toolout":
		if err := p.arity(word, args, "NAME OUTPUT"); err != nil {
			return err
		}
		p.s.World.ToolOutputs = append(p.s.World.ToolOutputs,
			ToolOutput{Name: p.val(args[0]), Output: p.val(args[1])})
	}
	return nil
}

// arity checks that args has one token per word of usage.
func (p *parser) arity(word string, args []tok, usage string) error {
	n := strings.Count(usage, " ") + 1 // usages are words separated by one space
	switch {
	case len(args) < n:
		return p.errorf(word, ErrArgs, "%s wants %s, got %d tokens", word, usage, len(args))
	case len(args) > n:
		return p.errorf(p.val(args[n]), ErrArgs, "%s wants %s, got %d tokens", word, usage, len(args))
	}
	return nil
}

// grantList returns the list of g that a grant line names, or nil.
func grantList(g *core.GrantSpec, what string) *[]string {
	switch what {
	case "fs_read":
		return &g.FSRead
	case "fs_write":
		return &g.FSWrite
	case "net":
		return &g.NetHosts
	case "tool":
		return &g.Tools
	}
	return nil
}

func (p *parser) grant(args []tok) error {
	if len(args) == 0 {
		return p.errorf("grant", ErrArgs, "grant wants fs_read, fs_write, net or tool and at least one item")
	}
	what := p.val(args[0])
	list := grantList(&p.s.Grant, what)
	if list == nil {
		return p.errorf(what, ErrUnknownDirective, "grant wants fs_read, fs_write, net or tool")
	}
	if len(args) == 1 {
		return p.errorf(what, ErrArgs, "grant %s wants at least one item", what)
	}
	for _, t := range args[1:] {
		item := p.val(t)
		if err := checkGrantItem(what, item); err != nil {
			return &ParseError{File: p.name, Line: p.line, Near: item, Err: err}
		}
		*list = append(*list, item)
	}
	return nil
}

// checkGrantItem returns core.NewGrant's error for a grant of the one item
// on the list what (a word grantList knows) names: the parser checks each
// item as it reads it, so that the error names its line.
func checkGrantItem(what, item string) error {
	one := []string{item}
	var probe core.GrantSpec
	switch what {
	case "fs_read":
		probe.FSRead = one
	case "fs_write":
		probe.FSWrite = one
	case "net":
		probe.NetHosts = one
	case "tool":
		probe.Tools = one
	}
	_, err := core.NewGrant(probe)
	return err
}

func (p *parser) budget(args []tok) error {
	if err := p.arity("budget", args, "NAME N"); err != nil {
		return err
	}
	b := &p.s.Grant.Budgets
	var field *int64
	switch p.val(args[0]) {
	case "ops":
		field = &b.MaxOps
	case "wall":
		field = &b.MaxWall
	case "output":
		field = &b.MaxOutputBytes
	default:
		return p.errorf(p.val(args[0]), ErrUnknownDirective, "budget wants ops, wall or output")
	}
	n, err := p.number(args[1])
	if err != nil {
		return err
	}
	*field = n
	return nil
}

func (p *parser) dns(args []tok) error {
	if len(args) < 2 {
		return p.errorf("dns", ErrArgs, "dns wants HOST ADDR..., got %d tokens", len(args))
	}
	rec := DNSRecord{Host: p.val(args[0])}
	for _, t := range args[1:] {
		a, err := netip.ParseAddr(p.val(t))
		if err != nil {
			return p.errorf(p.val(t), ErrBadAddr, "%v", err)
		}
		rec.Addrs = append(rec.Addrs, a)
	}
	p.s.World.DNS = append(p.s.World.DNS, rec)
	return nil
}

// number parses a non-negative decimal int64: digits only, no sign.
func (p *parser) number(t tok) (int64, error) {
	s := p.val(t)
	ok := s != ""
	for i := 0; ok && i < len(s); i++ {
		ok = '0' <= s[i] && s[i] <= '9'
	}
	if !ok {
		return 0, p.errorf(s, ErrBadNumber, "want a non-negative decimal integer")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, p.errorf(s, ErrBadNumber, "out of range")
	}
	return n, nil
}

// op parses an op line: kind, arguments, and an optional expectation.
func (p *parser) op(toks []tok) error {
	if !p.inOps {
		p.opsAt, p.opsLine, p.opsNote = p.start, p.line-1, len(p.notes)
	}
	kind, comment := p.val(toks[0]), p.takeComment()
	p.inOps = true
	rest := toks[1:]
	var exp *Expect
	for i, t := range rest {
		if p.isArrow(t) {
			var err error
			if exp, err = p.expect(t, rest[i+1:]); err != nil {
				return err
			}
			rest = rest[:i]
			break
		}
	}
	args := p.newArgs(rest)
	if p.s.Steps == nil {
		p.s.Steps = make([]Step, 0, p.linesLeft()+1) // this op and the lines after it
	}
	// The step is written field by field where it goes: a Step literal is
	// built aside and copied in, eleven words, which while the garbage
	// collector marks is a bulk write barrier, a tenth of an op line's
	// cost. Every field is written (the slot may hold an earlier parse's
	// step); TestStepFields fails when Step gains one.
	n := len(p.s.Steps)
	p.s.Steps = slices.Grow(p.s.Steps, 1)[:n+1]
	st := &p.s.Steps[n]
	st.Op.Kind, st.Op.Args, st.Line, st.Class = kind, args, p.line, attack.Unlabelled
	// Most steps have neither expectation nor comment, and the slot's
	// (an earlier parse's step) are mostly nil too: a nil stored over a
	// nil would cost a write barrier all the same.
	if st.Expect != exp {
		st.Expect = exp
	}
	if comment != nil || st.Comment != nil {
		st.Comment = comment
	}
	return nil
}

// newArgs returns the values of toks, nil for none, in a slice of p.args
// capped at its length: an append to one op's arguments moves them, and
// never writes into the next op's. Ops' arguments share a few allocations
// instead of growing one slice each.
func (p *parser) newArgs(toks []tok) []string {
	if len(toks) == 0 {
		return nil
	}
	if cap(p.args)-len(p.args) < len(toks) {
		// Room for this op and about two arguments for each line left,
		// what most ops take, and at least twice the last block: a
		// Parser, which keeps the last block, soon needs no new one.
		p.args = make([]string, 0, max(len(toks)+2*p.linesLeft(), 2*cap(p.args)))
	}
	n := len(p.args)
	for _, t := range toks {
		p.args = append(p.args, p.val(t))
	}
	return p.args[n:len(p.args):len(p.args)]
}

// linesLeft is how many lines follow the current one, up to maxHint: a
// bound on the ops still to come, for sizing the steps and arguments once.
// (Past maxHint they grow as appends grow them: a file of many blank lines
// must not make Parse allocate for as many ops.)
func (p *parser) linesLeft() int {
	rest := p.text[p.off:]
	n := 0
	for ; n < maxHint; n++ {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			return n + b2i(rest != "")
		}
		rest = rest[i+1:]
	}
	return n
}

// maxHint bounds the capacities Parse sizes from the lines it has yet to
// read: more than most scenarios have ops.
const maxHint = 64

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expect parses the tokens after the arrow: a kind and optional data.
func (p *parser) expect(arrow tok, toks []tok) (*Expect, error) {
	if len(toks) == 0 {
		return nil, p.errorf(p.val(arrow), ErrMissingKind, "=> wants a result kind")
	}
	k, ok := ParseKind(p.val(toks[0]))
	if !ok {
		return nil, p.errorf(p.val(toks[0]), ErrUnknownKind, "want ok, fs_read_denied, max_ops, ...")
	}
	e := Expect{Kind: k}
	if len(toks) > 1 {
		if p.isArrow(toks[1]) {
			return nil, p.errorf(p.val(toks[1]), ErrArgs, "a second =>; quote \"=>\" to expect it as data")
		}
		e.Data, e.HasData = p.val(toks[1]), true
	}
	if len(toks) > 2 {
		return nil, p.errorf(p.val(toks[2]), ErrArgs, "want at most one token of expected data after the kind")
	}
	return p.newExpect(e), nil
}

// newExpect returns a pointer to a copy of e in p.expects: the
// expectations of a scenario share a few allocations, as arguments do.
func (p *parser) newExpect(e Expect) *Expect {
	if len(p.expects) == cap(p.expects) {
		// A new block, not a grown one: the steps before point into
		// the old. Room for this line and every line left, and at
		// least twice the last block, as for arguments.
		p.expects = make([]Expect, 0, max(1+p.linesLeft(), 2*cap(p.expects)))
	}
	p.expects = append(p.expects, e)
	return &p.expects[len(p.expects)-1]
}
