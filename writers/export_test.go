package writers

// CommentSize exposes commentSize to the external tests.
var CommentSize = commentSize
