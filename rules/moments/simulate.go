package moments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// SimConfig sets up the seed's Poisson experiment (section 4.2): for each
// sample size n and Poisson mean, Reps samples of n values are drawn and,
// for each, the smallest power p whose moments (S_{p-1}, S_p) recover the
// whole sample by the iteration with estimates rounded up to integers.
type SimConfig struct {
	Sizes []int
	Means []float64
	Reps  int
	Seed  uint64
}

// SimCell is the outcome for one (n, mean): the smallest power for every
// replicate, to recover the whole sample (All) and the largest value
// (Largest).
type SimCell struct {
	N       int
	Mean    float64
	All     []int
	Largest []int
}

// Stats summarizes powers: mean, median, minimum and maximum.
func Stats(ps []int) (mean, median float64, lo, hi int) {
	if len(ps) == 0 {
		return 0, 0, 0, 0
	}
	s := slices.Clone(ps)
	slices.Sort(s)
	sum := 0
	for _, v := range s {
		sum += v
	}
	m := len(s) / 2
	median = float64(s[m])
	if len(s)%2 == 0 {
		median = float64(s[m-1]+s[m]) / 2
	}
	return float64(sum) / float64(len(s)), median, s[0], s[len(s)-1]
}

// Simulate runs the experiment. Results are deterministic for a seed: the
// random stream is PCG seeded with Seed, consumed in the order means, then
// sizes, then replicates.
func Simulate(cfg SimConfig) ([]SimCell, error) {
	if cfg.Reps < 1 {
		return nil, fmt.Errorf("%w: reps must be at least 1", ErrInput)
	}
	for _, n := range cfg.Sizes {
		if n < 1 {
			return nil, fmt.Errorf("%w: sample size %d", ErrInput, n)
		}
	}
	for _, m := range cfg.Means {
		if !(m > 0) || m > 700 {
			return nil, fmt.Errorf("%w: Poisson mean %v must be in (0, 700]", ErrInput, m)
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	var out []SimCell
	buf := make([]int64, 0, 128)
	for _, mean := range cfg.Means {
		for _, n := range cfg.Sizes {
			c := SimCell{N: n, Mean: mean, All: make([]int, cfg.Reps), Largest: make([]int, cfg.Reps)}
			for r := 0; r < cfg.Reps; r++ {
				buf = buf[:0]
				for i := 0; i < n; i++ {
					buf = append(buf, Poisson(rng, mean))
				}
				all, lg, err := SmallestRecoveryPower(buf)
				if err != nil {
					return nil, err
				}
				c.All[r], c.Largest[r] = all, lg
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// Poisson draws a Poisson variate with the given mean (at most about 700)
// by inversion of the distribution function.
func Poisson(rng *rand.Rand, mean float64) int64 {
	u := rng.Float64()
	p := math.Exp(-mean)
	f := p
	var k int64
	for u > f {
		k++
		p *= mean / float64(k)
		f += p
		if p == 0 && f < u { // numerical tail: restart with a fresh draw
			u = rng.Float64()
			k, p, f = 0, math.Exp(-mean), math.Exp(-mean)
		}
	}
	return k
}
