package generators

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"hash"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// identityDefault is TestGenerateIdentity's scenarios per stream, the run
// testdata/identity.golden pins.
const identityDefault = 500

var (
	identityN      = flag.Int("generators.identity", identityDefault, "scenarios per stream TestGenerateIdentity hashes; testdata/identity.golden holds the default's hash")
	identityUpdate = flag.Bool("generators.update-identity", false, "rewrite testdata/identity.golden (only when a generator is meant to change what it draws)")
)

// identityGolden holds the hash of TestGenerateIdentity's default run.
const identityGolden = "testdata/identity.golden"

// TestGenerateIdentity pins what the generators draw: it hashes the
// canonical text, the classes and the nil-or-empty shape of Generate's
// scenarios for seeds 1 to 3 and indices below -generators.identity, and of
// GenerateAtMost(·, 8) over as many sources of random bytes (the fuzz
// decoder's source), and compares the hash with the golden file. A speed-up
// must leave it alone; a change to what is drawn rewrites it with
// -generators.update-identity, and says so in its commit.
func TestGenerateIdentity(t *testing.T) {
	n := *identityN
	if testing.Short() {
		n = min(n, 200)
	}
	seeded, fuzzed := identityHashes(n)
	got := "seeded " + seeded + "\nbytes " + fuzzed + "\n"
	t.Logf("%d per stream:\n%s", n, got)
	if n != identityDefault {
		return // only the default run has a golden
	}
	if *identityUpdate {
		if err := os.WriteFile(identityGolden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(identityGolden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("generated scenarios changed:\n got %s\nwant %s(rerun with -generators.update-identity only if the change is meant)", got, want)
	}
}

// identityHashes returns the hex SHA-256 of n scenarios of each of seeds 1
// to 3, and of n GenerateAtMost(·, 8) scenarios over random bytes.
func identityHashes(n int) (seeded, fuzzed string) {
	h := sha256.New()
	for seed := uint64(1); seed <= 3; seed++ {
		for i := range n {
			hashScenario(h, Generate(NewSource(seed, uint64(i))))
		}
	}
	seeded = hex.EncodeToString(h.Sum(nil))
	h.Reset()
	r := rand.New(rand.NewPCG(7, 11)) // fixed: the inputs are part of the golden
	for range n {
		b := make([]byte, r.IntN(200))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		hashScenario(h, GenerateAtMost(&byteSource{data: b}, 8))
	}
	return seeded, hex.EncodeToString(h.Sum(nil))
}

// hashScenario writes sc's canonical text, then each step's class and
// whether its arguments are nil, then which of the grant's and the world's
// lists are nil: generation is deterministic down to nil versus empty.
func hashScenario(h hash.Hash, sc *scenario.Scenario) {
	h.Write(sc.Format())
	var shape strings.Builder
	for _, st := range sc.Steps {
		shape.WriteByte(byte(st.Class))
		shape.WriteByte(nilMark(st.Op.Args == nil))
	}
	for _, isNil := range []bool{sc.Grant.FSRead == nil, sc.Grant.FSWrite == nil, sc.Grant.NetHosts == nil,
		sc.Grant.Tools == nil, sc.World.Files == nil, sc.World.Links == nil, sc.World.Routes == nil,
		sc.World.DNS == nil, sc.World.ToolOutputs == nil} {
		shape.WriteByte(nilMark(isNil))
	}
	h.Write([]byte(shape.String()))
}

func nilMark(isNil bool) byte {
	if isNil {
		return 'n'
	}
	return 'e'
}

// byteSource is internal/fuzzdecode's Source over fuzz input bytes, copied
// (this package cannot import it): a draw among at most 256 values eats one
// byte, a larger one two, and every draw past the end is 0.
type byteSource struct{ data []byte }

func (s *byteSource) Intn(n int) int {
	if n <= 1 {
		if n <= 0 {
			panic("byteSource: Intn of a non-positive n")
		}
		return 0
	}
	var v uint
	for range 1 + boolInt(n > 256) {
		v <<= 8
		if len(s.data) > 0 {
			v |= uint(s.data[0])
			s.data = s.data[1:]
		}
	}
	return int(v % uint(n))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
