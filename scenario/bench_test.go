package scenario

import "testing"

// BenchmarkParser is a reused Parser on every source of parserSources in
// turn (the corpus, the golden files and the odd shapes), as a fuzz target
// parses one input after another.
func BenchmarkParser(b *testing.B) {
	srcs := benchSources(b)
	var p Parser
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Parse("b.sbx", srcs[i%len(srcs)])
	}
}

// BenchmarkParse is Parse, fresh memory every call, on the same sources.
func BenchmarkParse(b *testing.B) {
	srcs := benchSources(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Parse("b.sbx", srcs[i%len(srcs)])
	}
}

// benchSources returns parserSources as bytes.
func benchSources(b *testing.B) [][]byte {
	var out [][]byte
	for _, s := range parserSources(b) {
		out = append(out, []byte(s))
	}
	return out
}
