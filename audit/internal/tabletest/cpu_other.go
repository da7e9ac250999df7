//go:build !unix

package tabletest

// CPUSeconds is the process's CPU time: 0 on this system.
func CPUSeconds() float64 { return 0 }
