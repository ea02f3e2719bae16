//go:build js

package shard

// Sum256 is the SHA-256 of b (sum256.go says why not crypto/sha256 here).
func Sum256(b []byte) [32]byte { return sum256Go(b) }
