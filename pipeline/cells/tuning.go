package cells

// Tuning turns the builders' fast paths off so that tests can compare
// each with the plain path it replaces, byte for byte. The zero value is
// what every run uses (every fast path on); no configuration sets it.
type Tuning struct {
	// SerialDecode decodes Parquet and Arrow batches on the reading
	// goroutine instead of in parallel (parse_rowgroups.go).
	SerialDecode bool
	// AllColumns reads every column of a Parquet or Arrow source, not
	// only those the audit needs (skipUnread).
	AllColumns bool
	// SpanMap indexes the cells of spanning holdings by a map where an
	// array would do; SpanOff merges the spanning holdings into the
	// margins instead (the path kept for power sums and hierarchies).
	SpanMap, SpanOff bool
	// SpanExact contributes the spanning holdings on the cells' exact
	// path instead of through a slab (contribSlab).
	SpanExact bool
	// TextKeys finds the margins by string keys, as when the levels of
	// a table's dimensions do not pack into 64 bits (marginIndex).
	TextKeys bool
	// SerialAbsorb merges the shards into the builder one by one on one
	// goroutine (absorb) instead of in parallel (absorbAll).
	SerialAbsorb bool
}

// maxPackedBits is the most bits a packed margin key has.
func (t Tuning) maxPackedBits() uint {
	if t.TextKeys {
		return 0
	}
	return 64
}
