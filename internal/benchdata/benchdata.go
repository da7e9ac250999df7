// Package benchdata writes the generated microdata files of the
// benchmarks: pipeline's benchmarks and bench/scaletool (the scaling
// scripts) write the same files from the same code, so that figures
// measured by either are of the same input.
package benchdata

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Microdata writes rows records of id, region (50 levels), industry (40)
// and size (10) with a log-normal turnover: the 50 x 40 x 10 table of
// the scaling benchmarks.
func Microdata(w io.Writer, rows int) {
	r := rand.New(rand.NewPCG(42, uint64(rows)))
	fmt.Fprintln(w, "id,region,industry,size,turnover")
	for i := 0; i < rows; i++ {
		v := math.Exp(10 + 1.5*r.NormFloat64())
		fmt.Fprintf(w, "%d,R%02d,I%02d,S%d,%.2f\n", i, r.IntN(50), r.IntN(40), r.IntN(10), v)
	}
}

// Holdings writes rows records with the dimensions of Microdata and a
// holding column of holdings holdings spread over the cells: half of a
// holding's records fall in its home cell, the others anywhere, so that
// many holdings span cells and many do not.
func Holdings(w io.Writer, rows, holdings int) {
	r := rand.New(rand.NewPCG(43, uint64(rows)))
	fmt.Fprintln(w, "id,group,region,industry,size,turnover")
	for i := 0; i < rows; i++ {
		h := r.IntN(holdings)
		reg, ind, size := r.IntN(50), r.IntN(40), r.IntN(10)
		if r.IntN(2) == 0 {
			home := rand.New(rand.NewPCG(uint64(h), 1))
			reg, ind, size = home.IntN(50), home.IntN(40), home.IntN(10)
		}
		v := math.Exp(10 + 1.5*r.NormFloat64())
		fmt.Fprintf(w, "%d,G%06d,R%02d,I%02d,S%d,%.2f\n", i, h, reg, ind, size, v)
	}
}
