// Package intervals is the interval audit: for the cells a table
// withholds, it computes by LP over the table's relations (package
// relations) the interval an intruder can derive for each and whether it
// reaches the cell's protection levels (Audit; Check for a suppression
// method's candidate patterns).
package intervals
