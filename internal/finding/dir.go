package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// OutEnv names the environment variable that, when set, is the directory
// findings are written to unless one is given: the same for the command
// line and for sbxtest.
const OutEnv = "SBXFUZZ_OUT"

// DefaultDir is the directory the findings of sandbox sut go to when no
// directory is given: sbxfuzz/findings/SUT under the user's cache directory
// (os.UserCacheDir), or under os.TempDir when there is none. Never the
// working directory, so that a campaign run in a checkout leaves it as it
// was. SUT is DirName(sut), so that "mutant:raw-prefix" and
// "exec:python3 sandbox.py" name directories on every OS.
func DefaultDir(sut string) string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "sbxfuzz", "findings", DirName(sut))
}

// SUTKey is what names the default directory of the findings of sandbox
// sut driven with sutFlags (the flags that choose it again in a replay):
// its --sut name, and the profile it is driven with when that is not the
// door's default, so that one server judged through two profiles (its
// file tools, then its fetch tool) keeps two sets of findings apart, each
// replayed with its own flags.
func SUTKey(sut string, sutFlags []string) string {
	if i := slices.Index(sutFlags, "--profile"); i >= 0 && i+1 < len(sutFlags) {
		return sut + " --profile " + sutFlags[i+1]
	}
	return sut
}

// maxDirName bounds DirName: an exec: command can be long, and a path
// component is limited (255 bytes on most file systems).
const maxDirName = 64

// DirName turns a --sut name into one path component: letters, digits,
// '.', '_' and '-' are kept, runs of anything else become one '-', and the
// result is at most 64 bytes, never empty, ".", or "..". A name that had
// to be cut, or rewritten past the ':' after its kind (an exec: command,
// a server's path), ends in '-' and 8 hex digits of a hash of the whole
// name, so that two sandboxes never share a directory because their
// names read alike once rewritten; a kind and a plain name
// ("mutant:raw-prefix") keep the name as it reads.
func DirName(sut string) string {
	name, lossy := dirName(sut, maxDirName)
	if strings.Trim(name, ".") == "" {
		return "custom"
	}
	if !lossy {
		return name
	}
	sum := sha256.Sum256([]byte(sut))
	name, _ = dirName(sut, maxDirName-len(dirHashSep)-dirHashLen)
	return name + dirHashSep + hex.EncodeToString(sum[:dirHashLen/2])
}

// dirHashSep and dirHashLen are the separator and the hex digits of the
// hash DirName ends a rewritten name with.
const (
	dirHashSep = "-"
	dirHashLen = 8
)

// dirName is sut with every byte DirName does not keep turned into '-'
// (a run of them into one), at most most bytes long, and whether it
// lost anything: cut, or rewritten anywhere but at the ':' after a kind
// of letters at its start.
func dirName(sut string, most int) (string, bool) {
	var b strings.Builder
	dash, lossy := false, false
	kind := strings.IndexByte(sut, ':')
	if kind >= 0 && strings.Trim(sut[:kind], "abcdefghijklmnopqrstuvwxyz") != "" {
		kind = -1 // not a kind: the ':' is rewritten like any other byte
	}
	i := 0
	for ; i < len(sut) && b.Len() < most; i++ {
		c := sut[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
			continue
		}
		lossy = lossy || i != kind
		if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	return name, lossy || i < len(sut) || len(name) < b.Len()
}
