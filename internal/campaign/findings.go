package campaign

// WriteFindings writes every finding of res to dir as annotated .sbx files,
// each atomically, and returns their paths.
func WriteFindings(dir string, res *Result) ([]string, error) {
	var paths []string
	for i := range res.Findings {
		p, err := res.Pipeline.Write(dir, res.Findings[i].Finding)
		if err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
