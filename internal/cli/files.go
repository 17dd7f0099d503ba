package cli

import (
	"fmt"
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
)

// readData reads a file of data that is not a scenario (a fuzz input, a
// saved summary) as fsutil.ReadInput does, but refuses a directory without
// ReadInput's advice to give DIR/..., which only the commands on scenarios
// expand.
func readData(name string) ([]byte, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a file", name)
	}
	return fsutil.ReadInput(name)
}
