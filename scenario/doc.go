// Package scenario reads and writes .sbx scenario files (SPEC §10): a grant,
// a world and a list of ops, each op with an optional expectation. It is
// also where a world is described as data: WorldSpec and its parts (File,
// Link, Route, DNSRecord, ToolOutput, TickClock), from which the harness
// builds the world a sandbox acts through. It imports only the standard
// library, attack, core and internal/token.
//
// # The format
//
// One statement a line. A token is a bare word (no white space, no '"') or
// a Go double-quoted string read with strconv.Unquote, so any byte can be
// written. Tokens are separated by white space; a '"' inside a bare word, or
// a quoted token glued to the next one, is an error. A '#' that begins a
// token starts a comment to the end of the line; "a#b" is a bare word. A
// file must be text: a raw NUL byte or invalid UTF-8 anywhere is rejected,
// and so is, before a comment, a character that shows as a line break or
// reorders a line (a carriage return not ending a CRLF line, a vertical
// tab, a form feed, NEL, U+2028, U+2029, a bidirectional formatting
// character): write such bytes with escapes inside quotes. A comment's
// characters that do not show as themselves (package inert) are read as
// Go escapes (\x1b), as Format writes them.
//
// Header lines come first:
//
//	grant fs_read PATH...   grant fs_write PATH...   grant net HOST...   grant tool NAME...
//	budget ops N            budget wall N            budget output N
//	clock START STEP        file PATH DATA           route HOST PATH BODY
//	dns HOST ADDR...        toolout NAME OUTPUT      link PATH TARGET
//	redirect HOST PATH URL
//
// Grant lines accumulate; a later budget or clock line replaces an earlier
// one. Numbers are non-negative decimal int64. Every later line is an op:
// its first token is the kind (quote it to use a header word as a kind),
// then its arguments, then optionally the bare token "=>", the expected
// kind and, optionally, one token of expected data. A quoted "=>" is data.
//
// # Comments
//
// Only full-line comments are kept. The full-line comments before the first
// op become Scenario.Comment, except the run directly above the first op (no
// blank line between), which belongs to that op. After the first op, every
// comment line since the previous op belongs to the next op
// (Step.Comment); comments after the last op and comments that follow a
// statement on its line are dropped. Comment text is what follows "#" and
// one optional space, with trailing white space trimmed.
//
// # Canonical text
//
// Format writes, as sections separated by one blank line and omitted when
// empty:
//
//  1. the header comment, one "# text" line each ("#" alone for an empty line);
//  2. the grant lines in the order fs_read, fs_write, net, tool, one line per
//     list with all its items; budget lines that differ from the defaults,
//     in the order ops, wall, output; a clock line unless it is "clock 0 1";
//     then the file, link, route (or redirect), dns and toolout lines, each
//     kind in its given order;
//  3. the ops, one a line, each preceded by its comment lines, and by a blank
//     line when it has comments and is not the first op.
//
// Tokens are written with token.Format: bare when they can be, quoted
// otherwise. An op kind that is a header word is always quoted. An
// expectation "=> kind [data]" starts at column 46 (counting runes from 0),
// as in SPEC §10's worked trace; an op wider than 44 runes gets a single
// space before "=>". The column is fixed, not computed from the widest op,
// so that editing one op never realigns the others and diffs stay small.
//
// Parsing canonical text gives back the same scenario (Equal), and Format is
// a fixed point: Format(Parse(Format(s))) == Format(s) for every parsed s.
package scenario
