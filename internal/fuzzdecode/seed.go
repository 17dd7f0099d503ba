package fuzzdecode

import "github.com/sbxfuzz/sbxfuzz/scenario"

// TextSeed is a ModeText input for a scenario file: a "# seed: NAME" line,
// then the text.
func TextSeed(name string, text []byte) []byte {
	return append([]byte("# seed: "+name+"\n"), text...)
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
