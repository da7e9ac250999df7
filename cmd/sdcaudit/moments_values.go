package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
	"github.com/sdcaudit/sdcaudit/readers"
	"github.com/sdcaudit/sdcaudit/rules/moments"
)

// momentsFromValues prepares a cell from its microdata (--values FILE
// --column NAME): the true values are known.
func momentsFromValues(ctx context.Context, f *momentsFlags) (*momentsInput, error) {
	if f.column == "" {
		return nil, usageErr(errors.New("--values needs --column NAME"))
	}
	if f.n != 0 || f.raw != "" || f.means != "" || f.central != "" || f.mean != "" || f.sd != "" || f.variance != "" || f.skewness != "" || f.kurtosis != "" {
		return nil, usageErr(errors.New("give either --values or published statistics (--n with --raw, --moments, --central or --mean/--sd/...), not both"))
	}
	if f.maxOrder < 1 || f.maxOrder > 1000 {
		return nil, usageErr(fmt.Errorf("--max-order must be 1..1000, got %d", f.maxOrder))
	}
	col, err := readColumn(ctx, f.values, f.column, true)
	if err != nil {
		return nil, err
	}
	decs := col.Values
	in := &momentsInput{source: "values", missing: col.Missing}
	in.order = f.p
	if in.order == 0 {
		in.order = 4
	}
	step, err := valuesStep(f.step, decs)
	if err != nil {
		return nil, err
	}
	in.step = step.Float64()
	if step.Sign() > 0 {
		in.stepRat = step.Rat()
	}
	in.values = make([]float64, len(decs))
	in.exact = &moments.Exact{Values: make([]*big.Rat, len(decs)), Step: in.stepRat}
	for i, d := range decs {
		in.values[i] = d.Float64()
		in.exact.Values[i] = d.Rat()
	}
	if in.sums, err = moments.FromValues(in.values, max(in.order, f.maxOrder)); err != nil {
		return nil, &readers.Error{File: f.values, Column: f.column, Err: err}
	}
	in.setTruth()
	if in.stepRat != nil {
		in.setGrid(decs)
	}
	return in, nil
}

// valuesStep is the granularity of the values: --step, else their
// decimals.
func valuesStep(flag string, decs []decimal.Dec) (decimal.Dec, error) {
	if flag != "" {
		step, err := decimal.Parse(flag)
		if err != nil || step.Sign() < 0 {
			return step, usageErr(fmt.Errorf("--step %q: must be a non-negative number", flag))
		}
		return step, nil
	}
	d := 0
	for _, v := range decs {
		d = max(d, v.Scale())
	}
	return decimal.Must("1e-" + strconv.Itoa(d)), nil
}

// setTruth records the largest and second largest values, in float64 and
// exactly.
func (in *momentsInput) setTruth() {
	sorted := slices.Clone(in.values)
	slices.Sort(sorted)
	in.truth = &moments.Truth{Largest: sorted[len(sorted)-1]}
	if len(sorted) > 1 {
		in.truth.Second, in.truth.HasSecond = sorted[len(sorted)-2], true
	}
	byRat := slices.Clone(in.exact.Values)
	slices.SortFunc(byRat, func(a, b *big.Rat) int { return b.Cmp(a) })
	in.exact.Largest = byRat[0]
	if len(byRat) > 1 {
		in.exact.Second = byRat[1]
	}
}

// setGrid records the values in steps, for the exact recovery, when every
// value is a multiple of the step.
func (in *momentsInput) setGrid(decs []decimal.Dec) {
	grid := make([]int64, 0, len(decs))
	for _, d := range decs {
		q := new(big.Rat).Quo(d.Rat(), in.stepRat)
		if !q.IsInt() || !q.Num().IsInt64() {
			return
		}
		grid = append(grid, q.Num().Int64())
	}
	in.grid = grid
	in.exactSums, _ = moments.IntSums(grid, in.order)
}
