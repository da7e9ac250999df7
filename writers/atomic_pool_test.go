package writers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteAtomicBufferCarriesNothingOver: WriteAtomic's pooled buffer
// never carries bytes of one output into another. After outputs that
// failed or were cancelled with confidential bytes still buffered (no
// file is left for them), the next output holds exactly its own bytes;
// and outputs written concurrently, of sizes around and past the
// buffer's, each hold exactly the bytes their writer wrote (the writer's
// own copy is the oracle).
func TestWriteAtomicBufferCarriesNothingOver(t *testing.T) {
	dir := t.TempDir()
	secret := bytes.Repeat([]byte("SECRET contribution 123456789;"), 1000) // stays buffered
	errBoom := errors.New("boom")
	for i := range 40 {
		failed := filepath.Join(dir, "failed.report.json")
		err := WriteAtomic(context.Background(), failed, func(w io.Writer) error {
			if _, err := w.Write(secret); err != nil {
				return err
			}
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("failed write: got %v, want %v", err, errBoom)
		}
		ctx, cancel := context.WithCancel(context.Background())
		err = WriteAtomic(ctx, failed, func(w io.Writer) error {
			if _, err := w.Write(secret); err != nil {
				return err
			}
			cancel()
			_, err := w.Write(secret)
			return err
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled write: got %v, want %v", err, context.Canceled)
		}
		if _, err := os.Stat(failed); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a failed output was left: %v", err)
		}
		want := fmt.Appendf(nil, "region,count\nA,%d\n", i)
		public := filepath.Join(dir, "t.safe.csv")
		if err := WriteAtomic(context.Background(), public, func(w io.Writer) error {
			_, err := w.Write(want)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(public)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: got %q, want %q", i, got[:min(len(got), 200)], want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("files left in the directory: %v", entries)
	}

	sizes := []int{0, 1, 4095, writeBuffer - 1, writeBuffer, writeBuffer + 1, 3*writeBuffer + 17}
	var wg sync.WaitGroup
	for k := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(15, uint64(k)))
			want := make([]byte, sizes[k%len(sizes)])
			for i := range want {
				want[i] = byte('a' + k)
			}
			path := filepath.Join(dir, fmt.Sprintf("out%d", k))
			err := WriteAtomic(context.Background(), path, func(w io.Writer) error {
				for rest := want; len(rest) > 0; {
					n := min(len(rest), 1+r.IntN(2*writeBuffer))
					if _, err := w.Write(rest[:n]); err != nil {
						return err
					}
					rest = rest[n:]
				}
				return nil
			})
			if err != nil {
				t.Error(err)
				return
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output %d: %d bytes, want %d bytes of %q", k, len(got), len(want), rune('a'+k))
			}
		})
	}
	wg.Wait()
}
