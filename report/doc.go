// Package report says how findings read, for people and for machines,
// apart from the domain model (package audit) they describe.
//
// For people: numbers with thousands separators (Thousands, DecText,
// Rounded, PercentText, FloatText), plurals (Plural), the names of figures
// in words (Label) and figures rendered as text (Readable,
// AppendReadable). Rules compose their sentences with these; writers
// render figures with them in comments, explanation columns and pages.
//
// For machines: report.json's encoding of findings and their figures
// (FindingJSON, AppendFinding) without reflection, since a report holds
// millions of findings (facts implementing FiguresAppender and
// MessageAppender are written without allocating), and the interval
// audit's contract form (IntervalsJSON). Both write the bytes
// encoding/json would write for the same values (HTML escaping off).
//
// It lives beside the writers rather than in them because rules, which
// must not depend on the writers' formats, word their sentences with it.
package report
