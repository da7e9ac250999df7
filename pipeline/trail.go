package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/sdcaudit/sdcaudit/audit"
	"github.com/sdcaudit/sdcaudit/configs"
	"github.com/sdcaudit/sdcaudit/pipeline/cells"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules"
)

// inputLog gathers a run's audit trail: each job's resolved settings, and
// for each input file its size and SHA-256 and the rows read from each of
// its tables. Streaming readers (CSV, TSV) hash the bytes as they read
// them; a file read by random access (workbooks, Arrow, Parquet) is
// hashed in one extra sequential pass after its tables are read.
type inputLog struct {
	version, timestamp string
	jobs               []*jobTrail
}

// jobTrail is the trail of one job: its settings and its file.
type jobTrail struct {
	path        string
	format      string
	rng         string
	profile     string
	rules       []audit.RuleTrail
	suppression *audit.SuppressionTrail

	tee  *countingHash // nil when the reader does not stream the file
	once sync.Once
	size int64
	sum  string
	err  error
}

// countingHash hashes and counts the bytes written to it. The reader's
// goroutine only copies them into blocks: each full block is hashed on a
// goroutine of its own, after the block before it, so that SHA-256 (a
// quarter of the reading goroutine's time on a large CSV file, the one
// serial stage of the read) runs beside the reading. At most
// hashInFlight blocks wait to be hashed; Write waits for one when more
// would. One goroutine writes (the streaming reader's); Sum is called once
// the reader is done.
type countingHash struct {
	h hash.Hash
	n int64

	buf  []byte        // bytes not yet handed over (cap hashBlock)
	last chan struct{} // closed when the last block handed over is hashed
	sem  chan struct{} // the blocks in flight
	free chan []byte   // blocks to reuse
}

const (
	hashBlock    = 1 << 20
	hashInFlight = 4
)

func newCountingHash() *countingHash {
	return &countingHash{h: sha256.New(), sem: make(chan struct{}, hashInFlight), free: make(chan []byte, hashInFlight+1)}
}

func (c *countingHash) Write(p []byte) (int, error) {
	n := len(p)
	c.n += int64(n)
	for len(p) > 0 {
		if c.buf == nil {
			select {
			case c.buf = <-c.free:
				c.buf = c.buf[:0]
			default:
				c.buf = make([]byte, 0, hashBlock)
			}
		}
		k := copy(c.buf[len(c.buf):cap(c.buf)], p)
		c.buf, p = c.buf[:len(c.buf)+k], p[k:]
		if len(c.buf) == cap(c.buf) {
			c.handOver()
		}
	}
	return n, nil
}

// handOver hashes the current block after the blocks before it.
func (c *countingHash) handOver() {
	b := c.buf
	c.buf = nil
	c.sem <- struct{}{}
	prev, done := c.last, make(chan struct{})
	c.last = done
	go func() {
		if prev != nil {
			<-prev
		}
		c.h.Write(b)
		select {
		case c.free <- b:
		default:
		}
		<-c.sem
		close(done)
	}()
}

// Sum returns the SHA-256 of every byte written.
func (c *countingHash) Sum() []byte {
	if len(c.buf) > 0 {
		c.handOver()
	}
	if c.last != nil {
		<-c.last
	}
	return c.h.Sum(nil)
}

func newInputLog(jobs []Job, version, timestamp string) *inputLog {
	l := &inputLog{version: version, timestamp: timestamp, jobs: make([]*jobTrail, len(jobs))}
	for i, j := range jobs {
		s := j.Settings
		jt := &jobTrail{path: j.Path, format: readers.FormatOf(j.Path, cells.ReaderOptions(s)), profile: s.Profile, rules: RuleTrails(s)}
		if jt.format == "xlsx" {
			jt.rng = s.Input.Range
		}
		jt.suppression = &audit.SuppressionTrail{
			Secondary:  s.Suppression.Secondary,
			Audit:      s.Suppression.Audit,
			Cost:       s.Suppression.Cost,
			Protection: s.Suppression.Protection,
			TimeLimit:  s.Suppression.TimeLimit.String(),
		}
		jt.suppression.HierarchyFiles = cells.HierarchyTrail(s) // hierarchy.go
		l.jobs[i] = jt
	}
	return l
}

// options returns the reader options of job i, with a tee that hashes the
// file as a streaming reader reads it.
func (l *inputLog) options(i int, o readers.Options) readers.Options {
	if f := l.jobs[i].format; f == "csv" || f == "tsv" {
		l.jobs[i].tee = newCountingHash()
		o.Tee = l.jobs[i].tee
	}
	return o
}

// count wraps a source so that the trail knows how many rows it gave.
func (l *inputLog) count(src readers.Source) readers.Source {
	return cells.CountRows(src)
}

// digest returns the size and SHA-256 of job i's file once its tables are
// read: from the tee when the reader streamed the whole file through it,
// otherwise from one sequential read of the file.
func (jt *jobTrail) digest(ctx context.Context) (int64, string, error) {
	jt.once.Do(func() {
		if jt.tee != nil {
			if fi, err := os.Stat(jt.path); err == nil && fi.Size() == jt.tee.n {
				jt.size, jt.sum = jt.tee.n, hex.EncodeToString(jt.tee.Sum())
				return
			}
		}
		jt.size, jt.sum, jt.err = hashFile(ctx, jt.path)
	})
	return jt.size, jt.sum, jt.err
}

// hashFile reads a file once and returns its size and SHA-256; it stops
// with ctx.Err() when ctx is cancelled.
func hashFile(ctx context.Context, path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", &readers.Error{File: path, Err: err}
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return 0, "", err
		}
		k, err := f.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, "", &readers.Error{File: path, Err: err}
		}
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// table returns the trail of one table read from src (a source given by
// count) of job i.
func (l *inputLog) table(ctx context.Context, i int, src readers.Source) (*audit.Trail, error) {
	jt := l.jobs[i]
	size, sum, err := jt.digest(ctx)
	if err != nil {
		return nil, err
	}
	in := audit.InputTrail{Name: filepath.Base(jt.path), Size: size, SHA256: sum, Format: jt.format, Range: jt.rng}
	if rc, ok := src.(*cells.RowCounter); ok {
		in.Rows = rc.Rows()
	}
	if _, sheet := src.Where(); sheet != "" {
		in.Sheet = sheet
	}
	if jt.format == "csv" || jt.format == "tsv" {
		in.Encoding = "utf-8" // the CSV reader reads UTF-8, skipping a byte order mark
	}
	return &audit.Trail{
		Sdcaudit:    l.version,
		Timestamp:   l.timestamp,
		Profile:     jt.profile,
		Rules:       jt.rules,
		Suppression: jt.suppression,
		Inputs:      []audit.InputTrail{in},
	}, nil
}

// run returns the run's trail from its tables' trails: every input, and
// the settings when every table was audited with the same ones.
func (l *inputLog) run(tables []*audit.Table) *audit.Trail {
	r := &audit.Trail{Sdcaudit: l.version, Timestamp: l.timestamp, Inputs: []audit.InputTrail{}}
	var first []byte
	same := true
	for _, t := range tables {
		if t == nil || t.Run == nil {
			continue
		}
		r.Inputs = append(r.Inputs, t.Run.Inputs...)
		settings, _ := json.Marshal(audit.Trail{Profile: t.Run.Profile, Rules: t.Run.Rules, Suppression: t.Run.Suppression})
		if first == nil {
			first = settings
			r.Profile, r.Rules, r.Suppression = t.Run.Profile, t.Run.Rules, t.Run.Suppression
		} else if string(settings) != string(first) {
			same = false
		}
	}
	if !same {
		r.Profile, r.Rules, r.Suppression = "", nil, nil
	}
	return r
}

// RuleTrails lists every rule of the settings with its parameters as the
// rule decodes them (keyed by their configuration names), in the order of
// s.Rules. A disabled rule whose parameters do not validate still shows
// what was configured.
func RuleTrails(s *configs.Settings) []audit.RuleTrail {
	out := make([]audit.RuleTrail, 0, len(s.Rules))
	for _, r := range s.Rules {
		p, _ := rules.Params(r.Name, r.Decode) // errors were reported by BuildRules for enabled rules
		out = append(out, audit.RuleTrail{Name: r.Name, Enabled: r.Enabled, Params: rules.ParamValues(p)})
	}
	return out
}
