package writers

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/sdcaudit/sdcaudit/audit"
)

// The findings files (NAME.findings.parquet and NAME.findings.arrow) hold
// one row per cell and finding, for analysis across a release: the
// columns are
//
//	table    the table name
//	row      the source row of the cell (0 in microdata mode)
//	key      the cell key as "dim=value, dim=value"
//	DIM...   one text column per table dimension (prefixed "dim_" when a
//	         dimension's name is one of these column names)
//	status   the cell's status: ok, primary, secondary, review
//	rule     the rule (null for a cell that no rule looked at)
//	outcome  pass, fail, review or not_applicable (null likewise)
//	message  the rule's sentence
//
// The rules' figures (Finding.FigureList) are left out. Strings are
// dictionary-encoded in Parquet; rows are written in record batches of
// findingsBatch rows.

// FindingsParquet writes NAME.findings.parquet.
type FindingsParquet struct{}

// FindingsArrow writes NAME.findings.arrow (Arrow IPC file format).
type FindingsArrow struct{}

// File implements TableWriter.
func (FindingsParquet) File(t *audit.Table) string { return t.Name + ".findings.parquet" }

// File implements TableWriter.
func (FindingsArrow) File(t *audit.Table) string { return t.Name + ".findings.arrow" }

// Write writes the findings; see WriteContext.
func (p FindingsParquet) Write(w io.Writer, t *audit.Table) error {
	return p.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter.
func (FindingsParquet) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	schema := FindingsSchema(t)
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(true),
		parquet.WithCreatedBy("sdcaudit"),
	)
	root, err := parquetSchema(schema)
	if err != nil {
		return err
	}
	pw, err := file.NewParquetWriterWithError(writeOnly{w}, root, file.WithWriterProps(props))
	if err != nil {
		return err
	}
	if err := findingRecords(ctx, t, schema, func(r arrow.RecordBatch) error { return writeRowGroup(pw, r) }); err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}

// parquetSchema is the Parquet schema of the findings: strings as UTF-8
// byte arrays (optional when nullable), integers as INT64. The findings
// are written with arrow-go's column chunk writers rather than its Arrow
// layer (pqarrow), which brings Arrow Flight and gRPC into the binary.
func parquetSchema(s *arrow.Schema) (*pqschema.GroupNode, error) {
	var fields pqschema.FieldList
	for _, f := range s.Fields() {
		rep := parquet.Repetitions.Required
		if f.Nullable {
			rep = parquet.Repetitions.Optional
		}
		var n *pqschema.PrimitiveNode
		var err error
		switch f.Type.ID() {
		case arrow.STRING:
			n, err = pqschema.NewPrimitiveNodeLogical(f.Name, rep, pqschema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		case arrow.INT64:
			n, err = pqschema.NewPrimitiveNodeLogical(f.Name, rep, pqschema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
		default:
			err = fmt.Errorf("findings column %q: no Parquet form for %s", f.Name, f.Type)
		}
		if err != nil {
			return nil, err
		}
		fields = append(fields, n)
	}
	return pqschema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
}

// writeRowGroup writes one record batch as a row group.
func writeRowGroup(pw *file.Writer, r arrow.RecordBatch) error {
	rg, err := pw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	n := int(r.NumRows())
	defs := make([]int16, n)
	for c := 0; c < int(r.NumCols()); c++ {
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		col := r.Column(c)
		var dl []int16
		if r.Schema().Field(c).Nullable {
			dl = defs
			for i := range n {
				defs[i] = 1
				if col.IsNull(i) {
					defs[i] = 0
				}
			}
		}
		switch a := col.(type) {
		case *array.String:
			vals := make([]parquet.ByteArray, 0, n)
			for i := range n {
				if !a.IsNull(i) {
					vals = append(vals, parquet.ByteArray(a.Value(i)))
				}
			}
			_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(vals, dl, nil)
		case *array.Int64:
			vals := make([]int64, 0, n)
			for i := range n {
				if !a.IsNull(i) {
					vals = append(vals, a.Value(i))
				}
			}
			_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(vals, dl, nil)
		default:
			err = fmt.Errorf("findings column %d: no Parquet form for %s", c, col.DataType())
		}
		if err != nil {
			return err
		}
		if err := cw.Close(); err != nil {
			return err
		}
	}
	return rg.Close()
}

// Write writes the findings; see WriteContext.
func (a FindingsArrow) Write(w io.Writer, t *audit.Table) error {
	return a.WriteContext(context.Background(), w, t)
}

// WriteContext implements TableWriter.
func (FindingsArrow) WriteContext(ctx context.Context, w io.Writer, t *audit.Table) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	schema := FindingsSchema(t)
	fw, err := ipc.NewFileWriter(writeOnly{w}, ipc.WithSchema(schema))
	if err != nil {
		return err
	}
	if err := findingRecords(ctx, t, schema, fw.Write); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}

var findingsFixed = []string{"table", "row", "key", "status", "rule", "outcome", "message"}

// FindingsSchema is the schema of a table's findings files.
func FindingsSchema(t *audit.Table) *arrow.Schema {
	str := arrow.BinaryTypes.String
	fields := []arrow.Field{
		{Name: "table", Type: str},
		{Name: "row", Type: arrow.PrimitiveTypes.Int64},
		{Name: "key", Type: str},
	}
	for _, d := range t.Dims {
		name := d
		for _, f := range findingsFixed {
			if strings.EqualFold(f, d) {
				name = "dim_" + d
			}
		}
		fields = append(fields, arrow.Field{Name: name, Type: str})
	}
	fields = append(fields,
		arrow.Field{Name: "status", Type: str},
		arrow.Field{Name: "rule", Type: str, Nullable: true},
		arrow.Field{Name: "outcome", Type: str, Nullable: true},
		arrow.Field{Name: "message", Type: str, Nullable: true},
	)
	return arrow.NewSchema(fields, nil)
}

const findingsBatch = 65536

func findingRecords(ctx context.Context, t *audit.Table, schema *arrow.Schema, put func(arrow.RecordBatch) error) error {
	cc := canceller{ctx: ctx}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	nd := len(t.Dims)
	str := func(i int) *array.StringBuilder { return b.Field(i).(*array.StringBuilder) }
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		n = 0
		return put(rec)
	}
	add := func(c *audit.Cell, key string, f *audit.Finding) error {
		str(0).Append(t.Name)
		b.Field(1).(*array.Int64Builder).Append(int64(c.Row))
		str(2).Append(key)
		for d := 0; d < nd; d++ {
			v := ""
			if d < len(c.Key) {
				v = c.Key[d]
			}
			str(3 + d).Append(v)
		}
		str(3 + nd).Append(string(statusOf(c)))
		if f == nil {
			str(4 + nd).AppendNull()
			str(5 + nd).AppendNull()
			str(6 + nd).AppendNull()
		} else {
			str(4 + nd).Append(f.Rule)
			str(5 + nd).Append(f.Outcome.String())
			str(6 + nd).Append(f.Message())
		}
		n++
		if n >= findingsBatch {
			return flush()
		}
		return nil
	}
	var all []audit.Finding
	for _, c := range t.Cells {
		if err := cc.next(); err != nil {
			return err
		}
		key := t.KeyString(c.Key)
		all = c.AppendFindings(all[:0])
		if len(all) == 0 {
			if err := add(c, key, nil); err != nil {
				return err
			}
			continue
		}
		for i := range all {
			if err := add(c, key, &all[i]); err != nil {
				return err
			}
		}
	}
	return flush()
}

// writeOnly hides every method but Write, so that Arrow and Parquet
// writers do not close the caller's file.
type writeOnly struct{ w io.Writer }

func (o writeOnly) Write(p []byte) (int, error) { return o.w.Write(p) }
