package meansd

import (
	"context"
	"testing"
	"time"
)

func TestQuickCount(t *testing.T) {
	cases := []struct {
		req  Request
		want uint64
	}{
		{Request{N: 200, Min: "1", Max: "5", Mean: "3.0", SD: "1.2", Rounding: Closed}, 661948},
		{Request{N: 100, Min: "1", Max: "7", Mean: "4.0", SD: "1.5", Rounding: Closed}, 6139677},
		{Request{N: 200, Min: "1", Max: "7", Mean: "4.0", SD: "2.0", Rounding: Closed}, 646704518},
		{Request{N: 60, Min: "1", Max: "10", Mean: "3.1", SD: "2.1", Rounding: Closed}, 6854464},
		{Request{N: 7, Min: "1", Max: "5", Mean: "2.857", SD: "1.574"}, 2},
		{Request{N: 20, Min: "1", Max: "7", Mean: "1.85", SD: "0.875094"}, 4},
	}
	for _, c := range cases {
		p, err := compile(c.req)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		got, err := countDP(context.Background(), p, DefaultMaxCells)
		t.Logf("%+v: %d (%v) err=%v", c.req.N, got, time.Since(t0), err)
		if got != c.want {
			t.Errorf("got %d want %d", got, c.want)
		}
	}
}
