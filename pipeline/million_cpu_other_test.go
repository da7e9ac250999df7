//go:build !unix

package pipeline

// cpuSeconds is not measured here (0).
func cpuSeconds() float64 { return 0 }
