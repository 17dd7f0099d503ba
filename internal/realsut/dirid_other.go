//go:build !unix

package realsut

import "os"

// dirID is "" where a directory has no device and inode to name it by.
func dirID(os.FileInfo) string { return "" }
