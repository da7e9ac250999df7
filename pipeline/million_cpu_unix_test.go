//go:build unix

package pipeline

import (
	"syscall"
	"time"
)

// cpuSeconds is the process's user and system time so far: on a machine
// shared with other work it is a steadier measure than the wall clock.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()).Seconds()
}
