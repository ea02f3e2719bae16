//go:build !js

package shard

import "crypto/sha256"

// Sum256 is the SHA-256 of b.
func Sum256(b []byte) [32]byte { return sha256.Sum256(b) }
