package pipeline

import (
	"fmt"
	"os"
)

func mkdirAll(dir string) error {
	if dir == "" {
		return fmt.Errorf("no output directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}
