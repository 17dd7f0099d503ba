package fuzzfile

import (
	"bytes"
	"errors"
	"testing"
)

// TestReadInputLayouts: go test fuzz v1 files are recognised by their first
// line, anything else is read in the go-118-fuzz-build layout.
func TestReadInputLayouts(t *testing.T) {
	in := []byte("# x\nfs_read \"/work/\\x00\"\n\xff")
	tests := []struct {
		file   []byte
		layout Layout
		want   []byte
		wantL  Layout
		reason string
	}{
		{EncodeGoFuzz(in), 0, in, LayoutGoFuzz, "go test fuzz v1, detected"},
		{[]byte("go test fuzz v1\nstring(\"abc\")\n"), 0, []byte("abc"), LayoutGoFuzz, "a string argument"},
		{[]byte("go test fuzz v1\n[]byte(`raw`)"), 0, []byte("raw"), LayoutGoFuzz, "a raw literal, no final newline"},
		{EncodeLibFuzzer(in), 0, in, LayoutLibFuzzer, "the libFuzzer layout, detected"},
		{EncodeLibFuzzer(nil), 0, []byte{}, LayoutLibFuzzer, "an empty input"},
		{[]byte{0, 0, 0, 0, 'a', 'b'}, LayoutLibFuzzer, []byte{}, LayoutLibFuzzer, "n == 0 means 30; 30 mod 2 is 0"},
		{[]byte{0, 0, 0, 5, 'a', 'b', 'c'}, LayoutLibFuzzer, []byte("ab"), LayoutLibFuzzer, "5 mod the 3 bytes left"},
		{[]byte{0, 0, 0, 3, 'a', 'b', 'c'}, LayoutLibFuzzer, []byte("abc"), LayoutLibFuzzer, "exactly the bytes left"},
		{[]byte("go test fuzz v1\n"), LayoutRaw, []byte("go test fuzz v1\n"), LayoutRaw, "raw, whatever it looks like"},
	}
	for _, tt := range tests {
		got, l, err := ReadInput(tt.file, tt.layout)
		if err != nil || l != tt.wantL || !bytes.Equal(got, tt.want) {
			t.Errorf("ReadInput(%q, %d) = %q, %s, %v; want %q, %s: %s", tt.file, tt.layout, got, l, err, tt.want, tt.wantL, tt.reason)
		}
	}
}

// TestReadInputErrors: files that hold no input are errors that unwrap to
// ErrNotInput.
func TestReadInputErrors(t *testing.T) {
	for _, tt := range []struct {
		file   string
		reason string
	}{
		{"go test fuzz v1\n", "no argument"},
		{"go test fuzz v1\n[]byte(\"a\")\n[]byte(\"b\")\n", "two arguments"},
		{"go test fuzz v1\nint(3)\n", "not a []byte"},
		{"go test fuzz v1\n[]byte(\"unterminated)\n", "a bad literal"},
		{"abcd", "too short for a length and a byte"},
		{"", "empty"},
	} {
		if _, _, err := ReadInput([]byte(tt.file), 0); !errors.Is(err, ErrNotInput) {
			t.Errorf("ReadInput(%q) error %v, want ErrNotInput: %s", tt.file, err, tt.reason)
		}
	}
}

// TestLibFuzzerRoundTrip: EncodeLibFuzzer is DecodeLibFuzzer's inverse.
func TestLibFuzzerRoundTrip(t *testing.T) {
	inputs := [][]byte{nil, {0}, []byte("# x\nfs_read /a\n"), bytes.Repeat([]byte{0xff, 0, '\n'}, 100)}
	for n := range 300 {
		inputs = append(inputs, bytes.Repeat([]byte{byte(n)}, n))
	}
	for _, in := range inputs {
		got, err := DecodeLibFuzzer(EncodeLibFuzzer(in))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("round trip of %q gives %q, %v", in, got, err)
		}
	}
}

// TestReadInputCRLF: a go test fuzz v1 file whose lines end in CRLF, as a
// checkout with core.autocrlf writes it, is the input go test reads from
// it (Go accepts the CR after the header since Go 1.19): detected as such,
// not read in the libFuzzer layout.
func TestReadInputCRLF(t *testing.T) {
	in := []byte("# x\nfs_read \"/work/\\x00\"\n\xff")
	file := bytes.ReplaceAll(EncodeGoFuzz(in), []byte("\n"), []byte("\r\n"))
	for _, layout := range []Layout{0, LayoutGoFuzz} {
		got, l, err := ReadInput(file, layout)
		if err != nil || l != LayoutGoFuzz || !bytes.Equal(got, in) {
			t.Errorf("ReadInput(%q, %d) = %q, %s, %v; want %q, %s", file, layout, got, l, err, in, LayoutGoFuzz)
		}
	}
}
