package cells

import (
	"github.com/sdcaudit/sdcaudit/readers"
)

// Parallel parsing of delimited files (docs/performance.md): the goroutine
// that reads the file only cuts it into chunks of whole records
// (readers.Chunker.NextChunk, a byte scan for line breaks and quotes); the
// shards parse their chunks with encoding/csv and group the records at
// once, so that parsing runs on every core.

// work is what the reading goroutine hands a shard: a batch already
// parsed, or a chunk for the shard to parse.
type work struct {
	batch *readers.Batch
	chunk *readers.Chunk
	shard int // the shard that builds it: batch i goes to shard i mod n
}

// chunkReader reads a source by chunks; counter is the run's row counter
// around it, if any, which the chunks bypass.
type chunkReader struct {
	src     readers.Chunker
	counter *RowCounter
}

// newChunkReader returns a chunk reader when src (or the source under the
// run's row counter) cuts chunks, else nil. Other wrappers look at every
// batch and keep src read by Next.
func newChunkReader(src readers.Source) *chunkReader {
	counter, _ := src.(*RowCounter)
	if counter != nil {
		src = counter.Source
	}
	if c, ok := src.(readers.Chunker); ok {
		return &chunkReader{src: c, counter: counter}
	}
	return nil
}

func (r *chunkReader) next() (*readers.Chunk, error) { return r.src.NextChunk() }

// parse parses a chunk and counts its rows (progress is safe for
// concurrent use, as the command's progress display is).
func (r *chunkReader) parse(c *readers.Chunk, progress func(int64)) (*readers.Batch, error) {
	bt, err := c.Parse()
	if err != nil {
		return nil, err
	}
	if r.counter != nil {
		r.counter.rows.Add(int64(len(bt.Rows)))
	}
	if progress != nil {
		progress(int64(len(bt.Rows)))
	}
	return bt, nil
}

// powerShards is the number of shards of a builder whose cells keep
// floating-point power sums, at any number of workers.
const powerShards = 8

// partitions returns the number of shards that build b's records with
// the given number of workers. Batch i goes to shard i mod n and the
// shards are merged in a fixed order, so every exact statistic (counts,
// decimal sums, extremes, top values, holdings) is the same for any n,
// and n is the number of workers: every core groups and parses. Power
// sums are floating point, and their rounding depends on the partition:
// a builder that keeps them always uses powerShards shards, which the
// workers share (worker k builds shards k, k+workers, ...), so that its
// outputs are the same at every core and worker count too.
func partitions(b builder, workers int) int {
	if mb, ok := b.(*microBuilder); ok && mb.needs.Powers > 0 {
		return powerShards
	}
	return max(1, workers)
}
