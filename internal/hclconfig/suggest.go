package hclconfig

// DidYouMean is " Did you mean "X"?" for the candidate closest to name,
// when one is close enough to be a likely typo, and "" otherwise: the
// suggestion the configuration's messages make, for other callers (the
// command line's unknown commands).
func DidYouMean(name string, candidates []string) string {
	return didYouMean(name, candidates)
}
