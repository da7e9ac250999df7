// Package cells builds a table's cells from its input: the one place that
// turns rows into an audit.Table. Three builders stand behind one
// interface (Builder): Microdata sums records into every cell of the
// dimensions' cross (margins and hierarchy parents derived, holdings
// merged, the figures the rules need kept exactly), Summary reads a cell
// summary of microdata (docs/cells.md, sdcaudit sql), and Aggregate reads
// a published table, long or wide (crosstab), and infers its structure.
// Load picks the builder a Schema asks for; CompileSchema compiles the
// settings into one. Reading is concurrent with building (build): batch i
// goes to shard i mod n and the shards merge in a fixed order, so the
// cells are the same at any worker count.
//
// Open this package to change how cells, margins, statistics or a
// table's structure are derived from an input; the rules, the decisions
// and the outputs are the pipeline's (package pipeline), which calls Load
// once per table.
package cells
