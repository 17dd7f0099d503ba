package finding

import (
	"os"
	"path/filepath"
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
// was. SUT is the --sut name with every byte that is not a letter, a
// digit, '.', '_' or '-' turned into '-', so that "mutant:raw-prefix" and
// "exec:python3 sandbox.py" name directories on every OS.
func DefaultDir(sut string) string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, "sbxfuzz", "findings", DirName(sut))
}

// maxDirName bounds DirName: an exec: command can be long, and a path
// component is limited (255 bytes on most file systems).
const maxDirName = 64

// DirName turns a --sut name into one path component: letters, digits,
// '.', '_' and '-' are kept, runs of anything else become one '-', and the
// result is at most 64 bytes, never empty, ".", or "..".
func DirName(sut string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(sut) && b.Len() < maxDirName; i++ {
		c := sut[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.TrimRight(b.String(), "-")
	if strings.Trim(name, ".") == "" {
		return "custom"
	}
	return name
}
