#!/usr/bin/python3
"""Transcribe a published workbook (.xls BIFF or .xlsx) to the .cells
format of internal/corpus: every non-empty cell of the chosen sheets (all
by default), in sheet order, its value as stored (a number as the shortest
decimal that reads back as the stored double, written without ".0" when
whole; a text as stored) and its kind (n number, s text, b boolean), and
every merged range. Formatting (number formats: dates are stored as
numbers) is not transcribed.

Used once per workbook (python3 with xlrd 1.2, Debian's python3-xlrd):
    python3 xls2cells.py BOOK.xls [SHEET ...] > NAME.cells
"""
import sys

import xlrd


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def ref(r, c):
    col = ""
    c += 1
    while c:
        c, m = divmod(c - 1, 26)
        col = chr(65 + m) + col
    return "%s%d" % (col, r + 1)


def number(x):
    if x == int(x) and abs(x) < 2**53:
        return str(int(x))
    return repr(x)


def main():
    path, want = sys.argv[1], sys.argv[2:]
    book = xlrd.open_workbook(path, formatting_info=path.endswith(".xls"))
    out = sys.stdout
    for sh in book.sheets():
        if want and sh.name not in want:
            continue
        out.write("sheet\t%s\n" % esc(sh.name))
        for r1, r2, c1, c2 in sorted(sh.merged_cells):
            out.write("merge\t%s:%s\n" % (ref(r1, c1), ref(r2 - 1, c2 - 1)))
        for r in range(sh.nrows):
            for c in range(sh.ncols):
                cell = sh.cell(r, c)
                t = cell.ctype
                if t in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
                    continue
                if t in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE):
                    out.write("%s\tn\t%s\n" % (ref(r, c), number(cell.value)))
                elif t == xlrd.XL_CELL_TEXT:
                    if cell.value == "":
                        continue
                    out.write("%s\ts\t%s\n" % (ref(r, c), esc(cell.value)))
                elif t == xlrd.XL_CELL_BOOLEAN:
                    out.write("%s\tb\t%d\n" % (ref(r, c), int(cell.value)))
                else:
                    sys.exit("%s!%s: cell type %d (an error value) not transcribed" % (sh.name, ref(r, c), t))


if __name__ == "__main__":
    main()
