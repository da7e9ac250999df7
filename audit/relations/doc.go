// Package relations indexes a table's additive relations (a margin cell
// equals the sum of its children along one axis, the other axes held
// fixed) and enumerates the balanced moves along them, for the
// suppression method (package suppress) and the interval audit (package
// intervals).
package relations
