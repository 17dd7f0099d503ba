package fuzz

import "testing"

// FuzzRun runs decoded op sequences on the reference sandbox: see CheckRun.
func FuzzRun(f *testing.F) {
	OneProcPerWorker()
	for _, seed := range RunSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := CheckRun(data); err != nil {
			t.Fatal(err)
		}
	})
}
