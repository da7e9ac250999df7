package meansd

import (
	"context"
	"fmt"
	"math/big"
)

// SpaceRequest asks for the whole-space uniqueness profile of a scale: for
// each n, how many samples there are and how many of them no other sample
// shares the published (mean, SD) with (the seed's Tables 1-6).
type SpaceRequest struct {
	// Min, Max and Step define the grid as for Request.
	Min, Max, Step string
	// N lists the sample sizes (each at least 2).
	N []int
	// DPs lists the decimal places of the published mean and SD; Exact
	// (-1) keys samples by their exact (sum, sum of squares).
	DPs []int
	// Rounding is HalfUp or HalfEven (Closed and Exact do not define a
	// published string).
	Rounding Rounding
	// Population uses the SD with divisor n.
	Population bool
	// MaxCells bounds the table memory as for Request.
	MaxCells int
}

// ExactDP in SpaceRequest.DPs stands for unrounded (exact) values.
const ExactDP = -1

// SpaceRow is the profile for one n.
type SpaceRow struct {
	N       int
	Samples uint64
	// Unique counts the uniquely identified samples per entry of DPs, in
	// the same order.
	Unique []uint64
}

// Space computes the uniqueness profile. The number of samples with each
// exact (sum, sum of squares) comes from one counting pass over the values;
// the keys are then rounded exactly.
func Space(ctx context.Context, req SpaceRequest) ([]SpaceRow, error) {
	r, err := ParseRounding(string(req.Rounding))
	if err != nil {
		return nil, err
	}
	if r != HalfUp && r != HalfEven {
		return nil, fmt.Errorf("%w: space needs half-up or half-even rounding, got %s", ErrRequest, r)
	}
	nmax := 0
	for _, n := range req.N {
		if n < 2 {
			return nil, fmt.Errorf("%w: n must be at least 2, got %d", ErrRequest, n)
		}
		nmax = max(nmax, n)
	}
	if nmax == 0 {
		return nil, nil
	}
	p, err := compile(Request{N: nmax, Min: req.Min, Max: req.Max, Step: req.Step, Mean: req.Min, SD: "0", Population: true})
	if err != nil {
		return nil, err
	}
	K := p.K
	sw := nmax*K + 1
	qw := nmax*K*K + 1
	budget := req.MaxCells
	if budget <= 0 {
		budget = DefaultMaxCells * 4
	}
	if int64(nmax+1)*int64(sw)*int64(qw) > int64(budget) {
		return nil, fmt.Errorf("%w: the space for n=%d on %d values exceeds the memory budget", ErrRequest, nmax, K+1)
	}
	cnt, err := countSamples(ctx, nmax, K)
	if err != nil {
		return nil, err
	}
	var out []SpaceRow
	for _, n := range req.N {
		row := SpaceRow{N: n, Unique: make([]uint64, len(req.DPs))}
		layer := cnt[n]
		qn := n*K*K + 1
		for i, dp := range req.DPs {
			type key struct{ m, s int64 }
			tot := map[key]uint64{}
			meanKey := map[int]int64{}
			sdKey := map[int64]int64{}
			for s := 0; s <= n*K; s++ {
				for q := 0; q < qn; q++ {
					c := layer[s*qn+q]
					if c == 0 {
						continue
					}
					if i == 0 {
						row.Samples += c
					}
					D := int64(n)*int64(q) - int64(s)*int64(s)
					if dp == ExactDP {
						tot[key{int64(s), D}] += c
						continue
					}
					mk, ok := meanKey[s]
					if !ok {
						mk = roundMean(p, s, n, dp, r)
						meanKey[s] = mk
					}
					sk, ok := sdKey[D]
					if !ok {
						sk = roundSD(p, D, n, dp, r, req.Population)
						sdKey[D] = sk
					}
					tot[key{mk, sk}] += c
				}
			}
			for _, c := range tot {
				if c == 1 {
					row.Unique[i]++
				}
			}
		}
		out = append(out, row)
	}
	return out, nil
}

// roundInt rounds num/den (den > 0) to an integer under r.
func roundInt(num, den *big.Int, r Rounding) int64 {
	neg := num.Sign() < 0
	a := new(big.Int).Abs(num)
	q, m := new(big.Int).QuoRem(a, den, new(big.Int))
	c := new(big.Int).Mul(m, big.NewInt(2)).Cmp(den)
	if c > 0 || c == 0 && (r == HalfUp || q.Bit(0) == 1) {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64()
}

// roundMean is 10^dp·(min + step·s/n) rounded.
func roundMean(p *problem, s, n, dp int, r Rounding) int64 {
	x := new(big.Rat).Mul(p.step, big.NewRat(int64(s), int64(n)))
	x.Add(x, p.min)
	x.Mul(x, new(big.Rat).SetInt(pow10(dp)))
	return roundInt(x.Num(), x.Denom(), r)
}

// roundSD is 10^dp·SD rounded, where SD = step·sqrt(D/(n(n−1))).
func roundSD(p *problem, D int64, n, dp int, r Rounding, population bool) int64 {
	div := int64(n) * int64(n-1)
	if population {
		div = int64(n) * int64(n)
	}
	X := new(big.Rat).Mul(p.step, p.step)
	X.Mul(X, big.NewRat(D, div))
	X.Mul(X, new(big.Rat).SetInt(pow10(2*dp)))
	f := new(big.Int).Sqrt(new(big.Int).Quo(X.Num(), X.Denom()))
	// compare 4X with (2f+1)²
	t := new(big.Int).Lsh(f, 1)
	t.Add(t, big.NewInt(1))
	t.Mul(t, t)
	c := new(big.Int).Mul(X.Num(), big.NewInt(4)).Cmp(new(big.Int).Mul(t, X.Denom()))
	if c > 0 || c == 0 && (r == HalfUp || f.Bit(0) == 1) {
		f.Add(f, big.NewInt(1))
	}
	return f.Int64()
}

// countSamples counts, for each j ≤ nmax, the multisets of j values on the
// grid 0..K by their sum and sum of squares.
func countSamples(ctx context.Context, nmax, K int) ([][]uint64, error) {
	// cnt[j][s][q]: number of multisets of j values with sum s, squares q;
	// layer j only needs s ≤ jK and q ≤ jK².
	cnt := make([][]uint64, nmax+1)
	for j := range cnt {
		cnt[j] = make([]uint64, (j*K+1)*(j*K*K+1))
	}
	cnt[0][0] = 1
	for v := 0; v <= K; v++ {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		w := v * v
		for j := 1; j <= nmax; j++ {
			dq, sq := j*K*K+1, (j-1)*K*K+1
			dst, src := cnt[j], cnt[j-1]
			for s := v; s <= (j-1)*K+v; s++ {
				so := (s - v) * sq
				do := s*dq + w
				row := src[so : so+sq]
				for q, x := range row {
					if x != 0 {
						dst[do+q] += x
					}
				}
			}
		}
	}
	return cnt, nil
}
