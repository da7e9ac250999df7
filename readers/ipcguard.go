package readers

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Before arrow-go decodes an IPC message it sizes slices from what the
// message's flatbuffer header claims (the number of schema fields, of
// children, of key-value pairs, of variadic buffers) without comparing
// those claims with the bytes that hold them: a 3.5 KB file could make it
// ask for hundreds of gigabytes and kill the process. The guard below walks
// every header itself, with bounds checks, and refuses a file whose header
// claims more than the file holds (ErrCorrupt) or more than the memory
// budget (ErrTooLarge) before arrow-go sees it.
//
// What is checked: every flatbuffer table, vector and string lies inside its
// message; schema fields nest at most maxIPCDepth deep; a message body lies
// inside the file and the budget; every buffer of a record batch lies
// inside its body; no record batch or field node claims more than
// maxIPCRows(body) values (8 per body byte plus 65,536, which every type
// but Null and run-end encoding needs at least); variadic buffer counts
// fit the buffers the batch has.

// maxIPCMeta is the largest message header (and file footer) read.
const maxIPCMeta = 16 << 20

// maxIPCDepth bounds the nesting of schema fields.
const maxIPCDepth = 64

// maxIPCRows is the most values a record batch with a body of n bytes may
// claim.
func maxIPCRows(body int64) int64 { return 8*body + 1<<16 }

// ipcClaim is a refused IPC header; err wraps ErrCorrupt or ErrTooLarge.
type ipcClaim struct{ err error }

func (c *ipcClaim) Error() string { return c.err.Error() }
func (c *ipcClaim) Unwrap() error { return c.err }

func corruptf(format string, a ...any) error {
	return &ipcClaim{fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))}
}

var errFB = errors.New("a length or offset in the header points past its end")

// fbTable is a flatbuffer table inside buf, its vtable checked.
type fbTable struct {
	buf        []byte
	pos        int
	vt, vtLen  int
	tableBytes int
}

func fbU32(b []byte, p int) (uint32, bool) {
	if p < 0 || p > len(b)-4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[p:]), true
}

func fbU16(b []byte, p int) (uint16, bool) {
	if p < 0 || p > len(b)-2 {
		return 0, false
	}
	return binary.LittleEndian.Uint16(b[p:]), true
}

func fbI64(b []byte, p int) (int64, bool) {
	if p < 0 || p > len(b)-8 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(b[p:])), true
}

// fbRoot returns the root table of a flatbuffer.
func fbRoot(b []byte) (fbTable, error) {
	off, ok := fbU32(b, 0)
	if !ok {
		return fbTable{}, errFB
	}
	return fbTableAt(b, int64(off))
}

func fbTableAt(b []byte, pos int64) (fbTable, error) {
	if pos < 0 || pos > int64(len(b))-4 {
		return fbTable{}, errFB
	}
	p := int(pos)
	so, _ := fbU32(b, p)
	vt := int64(p) - int64(int32(so))
	if vt < 0 || vt > int64(len(b))-4 {
		return fbTable{}, errFB
	}
	vtLen, _ := fbU16(b, int(vt))
	tblLen, _ := fbU16(b, int(vt)+2)
	if vtLen < 4 || int64(vtLen) > int64(len(b))-vt || int(tblLen) > len(b)-p || tblLen < 4 {
		return fbTable{}, errFB
	}
	return fbTable{buf: b, pos: p, vt: int(vt), vtLen: int(vtLen), tableBytes: int(tblLen)}, nil
}

// field returns the absolute position of field slot, or -1 when absent; size
// is the bytes the field's value takes inside the table.
func (t fbTable) field(slot, size int) (int, error) {
	e := 4 + 2*slot
	if e+2 > t.vtLen {
		return -1, nil
	}
	off, _ := fbU16(t.buf, t.vt+e)
	if off == 0 {
		return -1, nil
	}
	if int(off)+size > t.tableBytes {
		return -1, errFB
	}
	return t.pos + int(off), nil
}

// i64 reads an int64 field (def when absent).
func (t fbTable) i64(slot int, def int64) (int64, error) {
	p, err := t.field(slot, 8)
	if err != nil || p < 0 {
		return def, err
	}
	v, _ := fbI64(t.buf, p)
	return v, nil
}

// u8 reads a ubyte field (0 when absent).
func (t fbTable) u8(slot int) (byte, error) {
	p, err := t.field(slot, 1)
	if err != nil || p < 0 {
		return 0, err
	}
	return t.buf[p], nil
}

// ref follows an offset field to the position it points at (-1 when absent).
func (t fbTable) ref(slot int) (int64, error) {
	p, err := t.field(slot, 4)
	if err != nil || p < 0 {
		return -1, err
	}
	off, _ := fbU32(t.buf, p)
	return int64(p) + int64(off), nil
}

// table follows a table field; ok is false when absent.
func (t fbTable) table(slot int) (fbTable, bool, error) {
	p, err := t.ref(slot)
	if err != nil || p < 0 {
		return fbTable{}, false, err
	}
	sub, err := fbTableAt(t.buf, p)
	return sub, err == nil, err
}

// vector follows a vector field whose elements take elem bytes each and
// returns the position of its first element and its length, checked to lie
// inside the buffer (n is 0 when absent).
func (t fbTable) vector(slot, elem int) (start, n int, err error) {
	p, err := t.ref(slot)
	if err != nil || p < 0 {
		return 0, 0, err
	}
	l, ok := fbU32(t.buf, int(min(p, math.MaxInt32)))
	if !ok || p > int64(len(t.buf)) {
		return 0, 0, errFB
	}
	if int64(l)*int64(elem) > int64(len(t.buf))-p-4 {
		return 0, 0, errFB
	}
	return int(p) + 4, int(l), nil
}

// tables checks a vector of tables and calls each on every element.
func (t fbTable) tables(slot int, each func(fbTable) error) error {
	start, n, err := t.vector(slot, 4)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		p := start + 4*i
		off, _ := fbU32(t.buf, p)
		sub, err := fbTableAt(t.buf, int64(p)+int64(off))
		if err != nil {
			return err
		}
		if each != nil {
			if err := each(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKeyValues checks a custom_metadata vector (KeyValue{key, value}).
func checkKeyValues(t fbTable, slot int) error {
	return t.tables(slot, func(kv fbTable) error {
		if _, _, err := kv.vector(0, 1); err != nil {
			return err
		}
		_, _, err := kv.vector(1, 1)
		return err
	})
}

// checkSchema checks a Schema table {endianness, fields, custom_metadata, features}.
func checkSchema(s fbTable) error {
	if err := s.tables(1, func(f fbTable) error { return checkField(f, 0) }); err != nil {
		return err
	}
	if err := checkKeyValues(s, 2); err != nil {
		return err
	}
	_, _, err := s.vector(3, 8)
	return err
}

// checkField checks a Field table {name, nullable, type_type, type,
// dictionary, children, custom_metadata}.
func checkField(f fbTable, depth int) error {
	if depth > maxIPCDepth {
		return fmt.Errorf("fields nested more than %d deep", maxIPCDepth)
	}
	if _, _, err := f.vector(0, 1); err != nil {
		return err
	}
	tt, err := f.u8(2)
	if err != nil {
		return err
	}
	if typ, ok, err := f.table(3); err != nil {
		return err
	} else if ok && tt == 14 { // Union {mode, typeIds: [int]}
		if _, _, err := typ.vector(1, 4); err != nil {
			return err
		}
	}
	if _, _, err := f.table(4); err != nil {
		return err
	}
	if err := f.tables(5, func(c fbTable) error { return checkField(c, depth+1) }); err != nil {
		return err
	}
	return checkKeyValues(f, 6)
}

// checkRecordBatch checks a RecordBatch table {length, nodes, buffers,
// compression, variadicBufferCounts} against a body of body bytes.
func checkRecordBatch(rb fbTable, body int64) error {
	maxRows := maxIPCRows(body)
	rows, err := rb.i64(0, 0)
	if err != nil {
		return err
	}
	if rows < 0 || rows > maxRows {
		return corruptf("a record batch claims %d rows in a body of %d bytes", rows, body)
	}
	start, n, err := rb.vector(1, 16)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		l, _ := fbI64(rb.buf, start+16*i)
		nulls, _ := fbI64(rb.buf, start+16*i+8)
		if l < 0 || l > maxRows || nulls < 0 || nulls > l {
			return corruptf("a field node claims %d values (%d null) in a body of %d bytes", l, nulls, body)
		}
	}
	start, nbuf, err := rb.vector(2, 16)
	if err != nil {
		return err
	}
	for i := 0; i < nbuf; i++ {
		off, _ := fbI64(rb.buf, start+16*i)
		l, _ := fbI64(rb.buf, start+16*i+8)
		if off < 0 || l < 0 || off > body || l > body-off {
			return corruptf("a buffer at offset %d of length %d lies outside a body of %d bytes", off, l, body)
		}
	}
	if _, _, err := rb.table(3); err != nil {
		return err
	}
	start, nv, err := rb.vector(4, 8)
	if err != nil {
		return err
	}
	total := int64(0)
	for i := 0; i < nv; i++ {
		c, _ := fbI64(rb.buf, start+8*i)
		if c < 0 || c > int64(nbuf) || total+c > int64(nbuf) {
			return corruptf("a record batch claims %d variadic buffers but has %d buffers", c, nbuf)
		}
		total += c
	}
	return nil
}

// checkMessage checks the flatbuffer header of one IPC message whose body
// may take at most avail bytes (avail < 0: unknown) and mem.limit bytes of
// memory. It returns the body length the message claims.
func checkMessage(meta []byte, avail int64, limit int64) (int64, error) {
	m, err := fbRoot(meta)
	if err != nil {
		return 0, corruptf("bad IPC message header: %v", err)
	}
	body, err := m.i64(3, 0)
	if err == nil {
		err = checkKeyValues(m, 4)
	}
	if err != nil {
		return 0, corruptf("bad IPC message header: %v", err)
	}
	if body < 0 || avail >= 0 && body > avail {
		return 0, corruptf("an IPC message claims a body of %d bytes, more than the %d bytes left in the file", body, max(avail, 0))
	}
	if body > limit {
		return 0, &ipcClaim{fmt.Errorf("%w: an IPC message claims a body of %d bytes, more than the memory budget of %d bytes", ErrTooLarge, body, limit)}
	}
	ht, err := m.u8(1)
	if err != nil {
		return 0, corruptf("bad IPC message header: %v", err)
	}
	h, ok, err := m.table(2)
	if err != nil {
		return 0, corruptf("bad IPC message header: %v", err)
	}
	if !ok {
		return body, nil
	}
	switch ht {
	case 1: // Schema
		err = checkSchema(h)
	case 2: // DictionaryBatch {id, data: RecordBatch, isDelta}
		var rb fbTable
		if rb, ok, err = h.table(1); err == nil && ok {
			err = checkRecordBatch(rb, body)
		}
	case 3: // RecordBatch
		err = checkRecordBatch(h, body)
	}
	var c *ipcClaim
	if errors.As(err, &c) {
		return 0, err
	}
	if err != nil {
		return 0, corruptf("bad IPC message header: %v", err)
	}
	return body, nil
}

// checkIPCFile checks the footer of an IPC file of size bytes and the
// header of every message its blocks point at.
func checkIPCFile(ra io.ReaderAt, size, limit int64) error {
	const magic = "ARROW1"
	if size < int64(2*len(magic)+2+4) {
		return corruptf("too short for an Arrow IPC file (%d bytes)", size)
	}
	var tail [10]byte
	if _, err := ra.ReadAt(tail[:], size-10); err != nil {
		return corruptf("%v", err)
	}
	if string(tail[4:]) != magic {
		return corruptf("not an Arrow IPC file (no ARROW1 at its end)")
	}
	flen := int64(int32(binary.LittleEndian.Uint32(tail[:4])))
	if flen <= 0 || flen > size-10-8 {
		return corruptf("the footer claims %d bytes in a file of %d", flen, size)
	}
	if flen > maxIPCMeta {
		return &ipcClaim{fmt.Errorf("%w: a footer of %d bytes (limit %d)", ErrTooLarge, flen, maxIPCMeta)}
	}
	footer := make([]byte, flen)
	fstart := size - 10 - flen
	if _, err := ra.ReadAt(footer, fstart); err != nil {
		return corruptf("%v", err)
	}
	ft, err := fbRoot(footer)
	if err != nil {
		return corruptf("bad footer: %v", err)
	}
	if s, ok, err := ft.table(1); err != nil {
		return corruptf("bad footer: %v", err)
	} else if ok {
		if err := checkSchema(s); err != nil {
			return corruptf("bad schema: %v", err)
		}
	}
	for _, slot := range []int{2, 3} { // dictionaries, recordBatches: [Block]
		start, n, err := ft.vector(slot, 24)
		if err != nil {
			return corruptf("bad footer: %v", err)
		}
		for i := 0; i < n; i++ {
			p := start + 24*i
			off, _ := fbI64(footer, p)
			ml, _ := fbU32(footer, p+8)
			body, _ := fbI64(footer, p+16)
			meta := int64(int32(ml))
			if off < 8 || meta < 8 || off > fstart || meta > fstart-off || body < 0 || body > fstart-off-meta {
				return corruptf("a block at offset %d (header %d, body %d bytes) lies outside the file", off, meta, body)
			}
			if meta > maxIPCMeta {
				return &ipcClaim{fmt.Errorf("%w: a message header of %d bytes (limit %d)", ErrTooLarge, meta, maxIPCMeta)}
			}
			buf := make([]byte, meta)
			if _, err := ra.ReadAt(buf, off); err != nil {
				return corruptf("%v", err)
			}
			fb := buf[4:]
			if binary.LittleEndian.Uint32(buf) == 0xFFFFFFFF {
				fb = buf[8:]
			}
			if _, err := checkMessage(fb, body, limit); err != nil {
				return err
			}
		}
	}
	return nil
}

// ipcGuard passes an IPC stream through, checking each message header
// before arrow-go reads it. size is the stream's length (< 0: unknown).
type ipcGuard struct {
	r       io.Reader
	left    int64 // bytes of the stream not yet read from r (< 0: unknown)
	limit   int64
	pending []byte // framing and header checked, not yet passed on
	body    int64  // body bytes still to pass on
	err     error
}

func newIPCGuard(r io.Reader, size, limit int64) *ipcGuard {
	return &ipcGuard{r: r, left: size, limit: limit}
}

func (g *ipcGuard) readFull(b []byte) error {
	n, err := io.ReadFull(g.r, b)
	if g.left >= 0 {
		g.left -= int64(n)
	}
	return err
}

func (g *ipcGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if len(g.pending) == 0 && g.body == 0 {
		if err := g.nextMessage(); err != nil {
			g.err = err
			if len(g.pending) == 0 {
				return 0, err
			}
		}
	}
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	if int64(len(p)) > g.body {
		p = p[:g.body]
	}
	n, err := g.r.Read(p)
	g.body -= int64(n)
	if g.left >= 0 {
		g.left -= int64(n)
	}
	if err == io.EOF && g.body > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// nextMessage reads the framing and header of the next message into pending.
func (g *ipcGuard) nextMessage() error {
	var hdr [8]byte
	n, err := io.ReadFull(g.r, hdr[:4])
	if g.left >= 0 {
		g.left -= int64(n)
	}
	if err != nil {
		g.pending = append(g.pending[:0], hdr[:n]...)
		return err
	}
	frame := hdr[:4]
	l := binary.LittleEndian.Uint32(hdr[:4])
	if l == 0xFFFFFFFF {
		if err := g.readFull(hdr[4:8]); err != nil {
			return err
		}
		frame = hdr[:8]
		l = binary.LittleEndian.Uint32(hdr[4:8])
	}
	g.pending = append(g.pending[:0], frame...)
	if l == 0 { // end of stream
		return nil
	}
	ml := int64(int32(l))
	if ml < 4 || g.left >= 0 && ml > g.left {
		return corruptf("an IPC message header claims %d bytes, more than the %d bytes left in the file", ml, max(g.left, 0))
	}
	if ml > maxIPCMeta {
		return &ipcClaim{fmt.Errorf("%w: an IPC message header of %d bytes (limit %d)", ErrTooLarge, ml, maxIPCMeta)}
	}
	meta := make([]byte, ml)
	if err := g.readFull(meta); err != nil {
		return err
	}
	body, err := checkMessage(meta, g.left, g.limit)
	if err != nil {
		return err
	}
	g.pending = append(g.pending, meta...)
	g.body = body
	return nil
}
