package realfs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// minLeak is the shortest original content Leak looks for: shorter ones
// ("ok", "1") turn up in innocent data.
const minLeak = 8

// secret is a file the grant forbids reading, and what of it would show
// in data that leaked it.
type secret struct {
	path      string
	canary    string
	content   string // the world's content, without the canary
	byContent bool   // content alone betrays the file (see canaries)
}

// canary is the mark appended to a forbidden file at world path p. It is
// derived from p alone, so the same scenario materializes byte for byte the
// same, and no two files share one.
func canary(p string) string {
	sum := sha256.Sum256([]byte(p))
	return "\n#" + CanaryMark + hex.EncodeToString(sum[:8]) + "#"
}

// canaries lays out the files, in path order, with a canary appended to
// every one whose path, resolved through the world's links, is not under
// the fs_read roots (SPEC §13), and lists those as secrets.
//
// A secret's content alone counts as a leak only when it is at least
// minLeak bytes and no readable file and no op argument holds it: a read
// of an allowed file, or of data an op wrote, may return those bytes
// honestly. The canary is there for everything else.
func canaries(ws scenario.WorldSpec, files map[string]string, g core.GrantSpec, ops []core.Op) ([]scenario.File, []secret) {
	world := refworld.Prepare(ws)
	var out []scenario.File
	var secrets []secret
	var innocent []string // readable contents and op arguments
	for _, p := range sortedKeys(files) {
		data := files[p]
		if r, ok := world.Resolve(p); ok && spec.UnderAllowlist(r, g.FSRead) {
			out = append(out, scenario.File{Path: p, Data: data})
			innocent = append(innocent, data)
			continue
		}
		c := canary(p)
		out = append(out, scenario.File{Path: p, Data: data + c})
		secrets = append(secrets, secret{path: p, canary: c, content: data})
	}
	for _, o := range ops {
		innocent = append(innocent, o.Args...)
	}
	for i := range secrets {
		secrets[i].byContent = len(secrets[i].content) >= minLeak && !anyHolds(innocent, secrets[i].content)
	}
	return out, secrets
}

func anyHolds(hay []string, needle string) bool {
	for _, h := range hay {
		if strings.Contains(h, needle) {
			return true
		}
	}
	return false
}

// Leak reports whether data betrays a file the grant forbids reading: it
// holds that file's canary, or its whole original content when that is at
// least 8 bytes long and no readable file or op argument holds it too. The
// answer is the world path of the first such file in path order, a
// canary's first: two forbidden files may hold the same content, and only
// the canary says which of them was read.
func (t *Tree) Leak(data string) (worldPath string, ok bool) {
	for _, s := range t.secrets {
		if strings.Contains(data, s.canary) {
			return s.path, true
		}
	}
	for _, s := range t.secrets {
		if s.byContent && strings.Contains(data, s.content) {
			return s.path, true
		}
	}
	return "", false
}

// CanaryMark begins every canary: data that holds it holds a canary.
const CanaryMark = "SBXFUZZ-CANARY-"
