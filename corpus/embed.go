package corpus

import "embed"

// Files holds every committed scenario, by its path below corpus/: the
// worked trace, classes/, regressions/ and mutants/. The public sbxtest
// package seeds a user's fuzz target with them, so a sandbox in another
// module is attacked from the first exec with every shape the project
// knows.
//
//go:embed *.sbx classes/*.sbx mutants/*.sbx regressions/*.sbx
var Files embed.FS
