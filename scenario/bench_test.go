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

// BenchmarkParserMutations is a reused Parser on eight variants of each
// source in turn, the source with its last byte changed, as a fuzzer
// runs mutations of one input: the Parser resumes after the header.
func BenchmarkParserMutations(b *testing.B) {
	var in [][]byte
	for _, src := range benchSources(b) {
		for j := range 8 {
			v := append([]byte(nil), src...)
			if len(v) > 1 {
				v[len(v)-2] = 'a' + byte(j) // the last byte before a final newline
			}
			in = append(in, v)
		}
	}
	var p Parser
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.Parse("b.sbx", in[i%len(in)])
	}
}
