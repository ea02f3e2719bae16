package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"testing"
)

// countingReader counts the reads taken from it.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// The store is hashed in reads of storeReadSize, and its digest is the
// SHA-256 of its bytes: 10 MiB and a partial page take 11 reads and the
// one that finds the end, where 32 KiB reads took 321.
func TestHashStoreReadsInLargeReads(t *testing.T) {
	b := make([]byte, 10<<20+1234)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	cr := &countingReader{r: bytes.NewReader(b)}
	n, sum, err := hashStore(cr)
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(b)
	if n != int64(len(b)) || sum != hex.EncodeToString(want[:]) {
		t.Errorf("hashStore = %d, %s; want %d, %x", n, sum, len(b), want)
	}
	if max := len(b)/storeReadSize + 2; cr.reads > max {
		t.Errorf("%d reads for %d bytes, want at most %d", cr.reads, len(b), max)
	}
}
