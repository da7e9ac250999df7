package writers

// CommentSize exposes commentSize to the external tests.
var CommentSize = commentSize

// SetMaxComments sets maxComments for a test and returns the restore.
func SetMaxComments(n int) func() {
	old := maxComments
	maxComments = n
	return func() { maxComments = old }
}

// SetMaxCrosstabValues sets maxCrosstabValues for a test and returns the
// restore.
func SetMaxCrosstabValues(n int) func() {
	old := maxCrosstabValues
	maxCrosstabValues = n
	return func() { maxCrosstabValues = old }
}
