package sbxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// ReplayEnv names the environment variable that makes Replay replay one
// file instead of its glob: the way a saved reproducer is replayed before
// it is copied into testdata/.
const ReplayEnv = "SBXFUZZ_REPLAY"

// Replay replays every .sbx file glob matches (for example
// "testdata/*.sbx"), one subtest a file: each op held to its expectation,
// every invariant judged. A glob that matches nothing fails, so a moved
// corpus cannot pass silently. A failing file prints the unmet
// expectations and violations and, for a violation, the minimized
// reproducer.
func Replay(t *testing.T, sb Sandbox, glob string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if one := os.Getenv(ReplayEnv); one != "" {
		files, err = []string{one}, nil
	}
	if err != nil {
		t.Fatalf("sbxtest.Replay: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("sbxtest.Replay: no file matches %q", glob)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".sbx"), func(t *testing.T) {
			if msg := replayFile(sb, file); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// replayFile replays one file and says what failed, "" when nothing did.
func replayFile(sb Sandbox, file string) string {
	text, err := fsutil.ReadInput(file)
	if err != nil {
		return err.Error()
	}
	sc, err := scenario.Parse(file, text)
	if err != nil {
		return err.Error()
	}
	out, err := replay.RunWithin(file, sc, sb.Factory, nil, sb.Timeout)
	if err != nil {
		return err.Error()
	}
	if !out.Failed() {
		return ""
	}
	var b strings.Builder
	for _, s := range out.Unmet() {
		fmt.Fprintf(&b, "%s:%d: %s\n", file, s.Line, s.Unmet)
	}
	if len(out.Findings) > 0 {
		b.WriteString(sb.fail(sc, out.Findings, "replayed from "+filepath.ToSlash(file)).Error())
	}
	return b.String()
}
