#!/usr/bin/python3
"""Transcribe sheets of a published .xls (BIFF) workbook into the corpus's
.cells text format (internal/corpus/corpus.go): every non-empty cell
(reference, kind, the value as stored) and every merged range, in the
published sheet order.

    /usr/bin/python3 xls2cells.py BOOK.xls [SHEET ...] > NAME.cells

Numbers (and dates, stored as numbers) are written with Python's repr of
the stored double (the shortest text that reads back as the same double),
integral values without a decimal point; text cells as stored (empty text
cells are left out, as the other transcriptions leave them); booleans as
0/1. An error cell stops the transcription. Needs xlrd 1.x (Debian:
python3-xlrd), whose formatting_info=True reads the merged ranges.
"""
import sys

import xlrd


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def number(v):
    if v == int(v) and abs(v) < 2**53:
        return str(int(v))
    return repr(v)


def main():
    book = xlrd.open_workbook(sys.argv[1], formatting_info=True)
    names = sys.argv[2:] or book.sheet_names()
    out = sys.stdout
    for name in names:
        s = book.sheet_by_name(name)
        out.write("sheet\t%s\n" % esc(name))
        for (r0, r1, c0, c1) in sorted(s.merged_cells):
            out.write("merge\t%s%d:%s%d\n" % (xlrd.colname(c0), r0 + 1, xlrd.colname(c1 - 1), r1))
        for r in range(s.nrows):
            for c in range(s.ncols):
                t, v = s.cell_type(r, c), s.cell_value(r, c)
                ref = "%s%d" % (xlrd.colname(c), r + 1)
                if t in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
                    continue
                if t == xlrd.XL_CELL_TEXT:
                    if v == "":
                        continue
                    out.write("%s\ts\t%s\n" % (ref, esc(v)))
                elif t in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE):
                    out.write("%s\tn\t%s\n" % (ref, number(v)))
                elif t == xlrd.XL_CELL_BOOLEAN:
                    out.write("%s\tb\t%d\n" % (ref, v))
                else:
                    sys.exit("%s!%s: error cell %r" % (name, ref, v))


if __name__ == "__main__":
    main()
