package report

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sdcaudit/sdcaudit/audit/decimal"
)

// TestAppendDecTextEqualsDecText: AppendDecText appends DecText's text,
// after whatever b holds, for decimals of every sign, scale and size
// (beyond int64 too).
func TestAppendDecTextEqualsDecText(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	for range 20000 {
		s := strconv.FormatInt(rng.Int64N(1<<62)>>rng.IntN(62), 10)
		if rng.IntN(5) == 0 {
			s += "123456789012345678901234"[:rng.IntN(24)]
		}
		if rng.IntN(3) == 0 {
			s += "." + strconv.Itoa(rng.IntN(100000))
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		d := decimal.Must(s)
		prefix := []byte("ab,1")[:rng.IntN(5)]
		got := AppendDecText(append([]byte(nil), prefix...), d)
		if want := string(prefix) + DecText(d); string(got) != want {
			t.Fatalf("%s: got %q, want %q", s, got, want)
		}
	}
}
