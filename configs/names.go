package configs

import (
	"regexp"
	"strings"
)

// Column and category names in published tables carry notes that are not
// part of the name: "[note 4]", "[Note 4]", "[notes 2 and 3]",
// "[note 1, 2]", superscript digits ("Total²"), or a footnote number
// glued to the last word ("Standard error3 (£M)"). StripNotes and
// ColumnKey remove them, so that a column given as "Standard error" or
// "Deaths" matches "Standard error3 (£M)"... only by ColumnKey, and
// "Deaths [note 4]" by both.

var (
	noteRe  = regexp.MustCompile(`(?i)\s*\[\s*notes?\s*[0-9]+[0-9a-z\s,&;-]*(and\s+[0-9]+\s*)*\]`)
	supRe   = regexp.MustCompile(`[\x{00B9}\x{00B2}\x{00B3}\x{2070}-\x{2079}]+`)
	gluedRe = regexp.MustCompile(`(\p{Ll}{3,})[0-9]{1,2}\b`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// StripNotes removes bracketed note references ("[note 4]", "[Note 4]",
// "[notes 2 and 3]") and superscript footnote digits from a name and
// collapses its spaces. A name that is nothing but notes is returned as
// it was.
func StripNotes(s string) string {
	t := noteRe.ReplaceAllString(s, "")
	t = supRe.ReplaceAllString(t, "")
	t = strings.TrimSpace(spaceRe.ReplaceAllString(t, " "))
	if t == "" {
		return strings.TrimSpace(s)
	}
	return t
}

// ColumnKey is the form in which column names are matched when they do not
// match exactly: StripNotes, then a footnote number glued to the end of a
// lower-case word removed ("error3" -> "error"), case folded.
func ColumnKey(s string) string {
	t := StripNotes(s)
	t = gluedRe.ReplaceAllString(t, "$1")
	return strings.ToLower(strings.TrimSpace(spaceRe.ReplaceAllString(t, " ")))
}
