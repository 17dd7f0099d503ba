package fuzzdecode

import (
	"bytes"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TextSeed is a ModeText input for a scenario file: a "# seed: NAME" line,
// then the text, without the byte-order mark it may start with (Parse
// ignores one only at the start of the input, and behind the seed's line
// it would begin the file's first token).
func TextSeed(name string, text []byte) []byte {
	return append([]byte("# seed: "+name+"\n"), bytes.TrimPrefix(text, []byte("\ufeff"))...)
}

// CompactSeed is the ModeText input a seed corpus holds for a scenario
// file: its canonical text without comments or expectations (the decoder
// drops them, and parsing them would only slow every exec down), headed by
// a "# seed: NAME" line.
func CompactSeed(name string, text []byte) ([]byte, error) {
	sc, err := scenario.Parse(name, text)
	if err != nil {
		return nil, err
	}
	sc.Comment = []string{"seed: " + name}
	for i := range sc.Steps {
		sc.Steps[i].Comment, sc.Steps[i].Expect = nil, nil
	}
	return sc.Format(), nil
}
