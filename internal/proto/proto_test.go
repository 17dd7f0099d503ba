package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
)

// TestBytesRoundTrip: every byte string crosses intact — NUL, control
// bytes, invalid UTF-8 — on a line that is valid UTF-8 and holds no
// newline, in at most maxEscape bytes a byte (what MaxLine is derived
// from).
func TestBytesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := Bytes(rapid.OneOf(
			rapid.StringMatching(`(?s).*`),
			rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
		).Draw(t, "b"))
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(raw) || bytes.ContainsRune(raw, '\n') {
			t.Fatalf("%q is written %s: not one UTF-8 line", b, raw)
		}
		if utf8.ValidString(string(b)) && len(raw) > maxEscape*len(b)+2 {
			t.Fatalf("%q is written in %d bytes, over %d a byte", b, len(raw), maxEscape)
		}
		var back Bytes
		if err := json.Unmarshal(raw, &back); err != nil || back != b {
			t.Fatalf("%q is written %s and reads back %q, %v", b, raw, back, err)
		}
	})
}

// TestMaxLineFitsEveryLegalScenario: MaxLine is derived from the largest
// scenario file the commands read, at the most bytes a JSON writer spends
// on one byte of it; a byte string of every byte value stays within that.
func TestMaxLineFitsEveryLegalScenario(t *testing.T) {
	if MaxByteString < fsutil.MaxInput {
		t.Fatalf("MaxByteString is %d, under the %d bytes a scenario file may hold", MaxByteString, fsutil.MaxInput)
	}
	for c := range 256 {
		raw, _ := json.Marshal(Bytes([]byte{byte(c)}))
		if n := len(raw) - 2; utf8.Valid([]byte{byte(c)}) && n > maxEscape {
			t.Errorf("byte %#x is written %s: %d bytes, over %d", c, raw, n, maxEscape)
		}
	}
	if MaxLine < maxEscape*MaxByteString {
		t.Fatalf("MaxLine %d cannot hold a byte string of %d bytes", MaxLine, MaxByteString)
	}
}

// TestLoneSurrogates: a JSON string escaping half of a surrogate pair is
// refused as a byte string (encoding/json reads it as U+FFFD, bytes the
// sender never wrote); a whole pair, and an escaped backslash before a
// 'u', are not.
func TestLoneSurrogates(t *testing.T) {
	for _, tc := range []struct {
		json string
		want string // "" for refused
	}{
		{`"\ud800"`, ""},
		{`"\udc00"`, ""},
		{`"a\ud800b"`, ""},
		{`"\ud800\u0041"`, ""},
		{`"\ud800\\udc00"`, ""},
		{`"\ud83d\ude00"`, "\U0001F600"},
		{`"\\ud800"`, `\ud800`},
		{`"\u00e9\n"`, "é\n"},
		{`"\uFFFD"`, "\uFFFD"},
	} {
		var b Bytes
		err := json.Unmarshal([]byte(tc.json), &b)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s reads as %q, want an error", tc.json, b)
		case tc.want != "" && (err != nil || string(b) != tc.want):
			t.Errorf("%s reads as %q, %v; want %q", tc.json, b, err, tc.want)
		}
	}
}

// TestInt: within ±2^53 an integer is a JSON number, beyond it a decimal
// string; both read back, and anything else is an error.
func TestInt(t *testing.T) {
	for _, tc := range []struct {
		n    Int
		want string
	}{
		{0, `0`}, {-5, `-5`}, {1 << 53, `9007199254740992`}, {1<<53 + 1, `"9007199254740993"`},
		{math.MaxInt64, `"9223372036854775807"`}, {math.MinInt64, `"-9223372036854775808"`},
	} {
		raw, _ := json.Marshal(tc.n)
		var back Int
		if string(raw) != tc.want || json.Unmarshal(raw, &back) != nil || back != tc.n {
			t.Errorf("%d is written %s and reads back %d, want %s", tc.n, raw, back, tc.want)
		}
	}
	for _, bad := range []string{`1.5`, `"x"`, `"9223372036854775808"`, `true`} {
		var n Int
		if err := json.Unmarshal([]byte(bad), &n); err == nil {
			t.Errorf("%s reads as %d, want an error", bad, n)
		}
	}
}

// TestIDs: an id is a number or a string, kept as sent so that an answer
// echoes it exactly; a string is the same id however it is escaped; any
// other type is a protocol error that says what is wrong (string ids were
// refused as "not a JSON-RPC 2.0 message").
func TestIDs(t *testing.T) {
	for _, id := range []string{`7`, `-1`, `"x"`, `"ü"`, `"\u00fc"`, `null`, `12345678901234567890`} {
		m, err := NewReader(strings.NewReader(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}` + "\n")).Read()
		if err != nil {
			t.Errorf("id %s: %v", id, err)
			continue
		}
		if string(m.ID) != id {
			t.Errorf("id %s reads as %s", id, m.ID)
		}
		var out bytes.Buffer
		Write(&out, &Message{ID: m.ID, Result: json.RawMessage(`{}`)})
		if want := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n"; out.String() != want {
			t.Errorf("the answer to id %s is %s, want %s", id, out.String(), want)
		}
	}
	for _, id := range []string{`true`, `{}`, `[1]`} {
		_, err := NewReader(strings.NewReader(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}` + "\n")).Read()
		if !errors.Is(err, errBadID) {
			t.Errorf("id %s: %v, want %v", id, err, errBadID)
		}
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`7`, `7`, true}, {`"ü"`, `"\u00fc"`, true}, {`"7"`, `7`, false}, {`7`, `8`, false}, {`"a"`, `"b"`, false}, {``, `null`, false},
	} {
		if got := ID(tc.a).Equal(ID(tc.b)); got != tc.same {
			t.Errorf("%s Equal %s = %v", tc.a, tc.b, got)
		}
	}
	if IntID(42).String() != "42" || ID(nil).String() != "none" {
		t.Errorf("IntID(42) is %s, no id is %s", IntID(42), ID(nil))
	}
	var out bytes.Buffer
	Write(&out, &Message{Method: "note"})
	if out.String() != `{"jsonrpc":"2.0","method":"note"}`+"\n" {
		t.Errorf("a notification is written %s", out.String())
	}
}

// TestReadRefusesInvalidUTF8: a line that is not UTF-8 is a protocol error
// naming where; it was replaced with U+FFFD and read as what the sender
// never wrote. The next line reads.
func TestReadRefusesInvalidUTF8(t *testing.T) {
	r := NewReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{"data":"a` + "\xff" + `b"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"))
	_, err := r.Read()
	if !errors.Is(err, ErrNotUTF8) || !strings.Contains(err.Error(), "at byte 43") {
		t.Fatalf("Read: %v, want %v at byte 43", err, ErrNotUTF8)
	}
	if m, err := r.Read(); err != nil || string(m.ID) != "2" {
		t.Fatalf("the next line: %v, %v", m, err)
	}
	if _, err := NewReader(strings.NewReader("\xc3\n")).line(); !errors.Is(err, ErrNotUTF8) {
		t.Fatalf("line: %v, want %v", err, ErrNotUTF8)
	}
}

// TestReadErrors: what is not a JSON-RPC 2.0 message is an error quoting
// it; the end of the stream is io.EOF between lines and
// io.ErrUnexpectedEOF inside one.
func TestReadErrors(t *testing.T) {
	for _, line := range []string{`hello`, `{"jsonrpc":"1.0","id":1}`, `[1,2]`, `{"jsonrpc":"2.0","id":1,"result":{}`} {
		_, err := NewReader(strings.NewReader(line + "\n")).Read()
		if err == nil || !strings.Contains(err.Error(), "not a JSON-RPC 2.0 message") {
			t.Errorf("%s: %v", line, err)
		}
	}
	if _, err := NewReader(strings.NewReader("")).Read(); err != io.EOF {
		t.Errorf("an empty stream: %v, want io.EOF", err)
	}
	if _, err := NewReader(strings.NewReader(`{"jsonrpc":`)).Read(); err != io.ErrUnexpectedEOF {
		t.Errorf("a cut line: %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestLineLimit: a line of the limit is read, whatever the buffer's size;
// one byte more is ErrLineTooLong, before it is buffered whole.
func TestLineLimit(t *testing.T) {
	for _, limit := range []int{10, 64 << 10, 64<<10 + 1, 200 << 10} {
		ok := strings.Repeat("x", limit)
		r := &Reader{NewReader(strings.NewReader(ok + "\n" + ok + "y\n")).r, limit}
		if got, err := r.line(); err != nil || len(got) != limit {
			t.Errorf("limit %d: a line of %d bytes: %d bytes, %v", limit, limit, len(got), err)
		}
		if _, err := r.line(); err != ErrLineTooLong {
			t.Errorf("limit %d: a line of %d bytes: %v, want %v", limit, limit+1, err, ErrLineTooLong)
		}
	}
	if MaxLine < 64<<20 {
		t.Errorf("MaxLine is %d", MaxLine)
	}
}

// TestBuffered: what was read with a message but not returned shows, so
// a client sees a peer that wrote out of turn.
func TestBuffered(t *testing.T) {
	r := NewReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":"s","method":"m"}` + "\n"))
	if _, err := r.Read(); err != nil || r.Buffered() == 0 {
		t.Fatalf("after the first message: %v, %d buffered", err, r.Buffered())
	}
	if _, err := r.Read(); err != nil || r.Buffered() != 0 {
		t.Fatalf("after the second: %v, %d buffered", err, r.Buffered())
	}
}

// TestMessages: requests, notifications and responses with a result or an
// error cross as written, ids of both types and of any size included
// (a peer's id is echoed, never parsed into a number that would round it),
// and read back as the same message.
func TestMessages(t *testing.T) {
	for _, tc := range []struct {
		m    Message
		line string
	}{
		{Message{ID: IntID(3), Method: "tools/call", Params: json.RawMessage(`{"name":"x"}`)},
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`},
		{Message{Method: "notifications/initialized"},
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{Message{ID: ID(`"req-1"`), Result: json.RawMessage(`{"roots":[]}`)},
			`{"jsonrpc":"2.0","id":"req-1","result":{"roots":[]}}`},
		{Message{ID: ID(`123456789012345678901234567890`), Error: &Error{Code: -32601, Message: "Method not found: x"}},
			`{"jsonrpc":"2.0","id":123456789012345678901234567890,"error":{"code":-32601,"message":"Method not found: x"}}`},
		{Message{ID: IntID(9007199254740993), Result: json.RawMessage(`null`)},
			`{"jsonrpc":"2.0","id":9007199254740993,"result":null}`},
	} {
		var out bytes.Buffer
		m := tc.m
		if err := Write(&out, &m); err != nil || out.String() != tc.line+"\n" {
			t.Errorf("%+v is written %s, %v; want %s", tc.m, out.String(), err, tc.line)
			continue
		}
		back, err := NewReader(&out).Read()
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		back.JSONRPC = ""
		if diff := cmp.Diff(&tc.m, back); diff != "" {
			t.Errorf("%s reads back different (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestNoneIDs: an absent id and a null one are both no id (a
// notification, or the answer to a request that could not be read), and
// read "none"; every other id is one.
func TestNoneIDs(t *testing.T) {
	for _, tc := range []struct {
		id   ID
		none bool
	}{
		{nil, true}, {ID(`null`), true}, {ID(`0`), false}, {ID(`""`), false}, {ID(`"null"`), false},
	} {
		if tc.id.None() != tc.none || (tc.id.String() == "none") != tc.none {
			t.Errorf("ID(%s): None %v, String %s; want None %v", []byte(tc.id), tc.id.None(), tc.id, tc.none)
		}
	}
}

// TestNotJSON: a line that is not JSON at all — a log line, a message cut
// short — says so (ErrNotJSON), and the next line reads, so that a client
// may skip a peer's log lines; JSON that is no JSON-RPC 2.0 message, or
// has an id of another type, is another error, never skipped.
func TestNotJSON(t *testing.T) {
	for _, tc := range []struct {
		line    string
		notJSON bool
	}{
		{"Secure MCP Filesystem Server running on stdio", true},
		{`{"jsonrpc":"2.0","id":1,"result":{}`, true},
		{`{"hello": "world"}`, false},
		{`{"jsonrpc":"2.0","id":true,"result":{}}`, false},
		{`"a string"`, false},
	} {
		r := NewReader(strings.NewReader(tc.line + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
		_, err := r.Read()
		if err == nil || errors.Is(err, ErrNotJSON) != tc.notJSON || !strings.Contains(err.Error(), "not a JSON-RPC 2.0 message") {
			t.Errorf("%s: %v; want a protocol error, wrapping %v: %v", tc.line, err, ErrNotJSON, tc.notJSON)
		}
		if m, err := r.Read(); err != nil || string(m.ID) != "1" {
			t.Errorf("the message after %s: %v, %v", tc.line, m, err)
		}
	}
}

// TestUnasked: only a whole number from 1 to the last id sent answers a
// request; any other id, a string among them, answers nothing asked.
func TestUnasked(t *testing.T) {
	for _, tc := range []struct {
		id      string
		unasked bool
	}{
		{`1`, false}, {`3`, false},
		{`0`, true}, {`4`, true}, {`-1`, true}, {`"forged"`, true}, {`"2"`, true}, {`2.0`, true},
	} {
		if got := Unasked(ID(tc.id), 3) != ""; got != tc.unasked {
			t.Errorf("Unasked(%s, 3) says unasked %v, want %v", tc.id, got, tc.unasked)
		}
	}
	// An error answered with no id is the server's word that it could
	// not read a request, not a line forged on its stream.
	for _, id := range []string{``, `null`} {
		if got := Unasked(ID(id), 3); !strings.Contains(got, "could not read") || strings.Contains(got, "forge") {
			t.Errorf("Unasked(%q, 3) = %q, want words for a request it could not read", id, got)
		}
	}
}

// TestUnaskedWrittenOtherwise: an id that is a request's number spelled
// another way (a string of its digits, 2.0, 2e0) is no line written
// unasked: the words say which request's id it is and that an answer
// echoes it as sent, not that nobody asked it.
func TestUnaskedWrittenOtherwise(t *testing.T) {
	for _, id := range []string{`2.0`, `"2"`, `2e0`, `0.2e1`} {
		got := Unasked(ID(id), 3)
		if got == "" || strings.Contains(got, "no request had that id") || !strings.Contains(got, "request 2") {
			t.Errorf("Unasked(%s, 3) = %q, want words naming request 2's id written otherwise", id, got)
		}
	}
	for _, id := range []string{`4.0`, `"4"`, `2.5`, `"x"`, `1e400`} {
		if got := Unasked(ID(id), 3); !strings.Contains(got, "no request had that id") {
			t.Errorf("Unasked(%s, 3) = %q, want words for a line nobody asked", id, got)
		}
	}
}
