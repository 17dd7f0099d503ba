package door

// Failure is what a sandbox behind a door panics with when Run, Usage
// or Grant cannot give an answer at all — the process behind it exited,
// wrote garbage, or broke its protocol (and so does a sandbox over a real
// tree that cannot observe it). The harness reports it as a total finding
// in these words; a panic of any other value is reported as a panic.
type Failure struct {
	Err error
}

// Error returns the failure's words.
func (f *Failure) Error() string { return f.Err.Error() }

// Unwrap returns the underlying error.
func (f *Failure) Unwrap() error { return f.Err }
