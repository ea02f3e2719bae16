package shard

import (
	"bytes"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// fuzzBudget replaces maxDecodedBytes while fuzzing: a few bytes can claim
// millions of constant rows, and the real budget is tested on its own.
const fuzzBudget = 1 << 20

// addShardSeeds adds the small round-trip shards. Large seeds are left out:
// the fuzzer minimizes every input that finds new coverage, and a
// multi-kilobyte input keeps it minimizing instead of exploring.
func addShardSeeds(f *testing.F) {
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) <= 1024 {
			f.Add(raw)
		}
	}
	raw, err := Encode(benchShard(30))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
}

// FuzzDecode feeds arbitrary bytes to Decode twice: as given (exercising the
// header and checksum checks) and with a forged valid checksum (reaching the
// parser, which a fuzzer could not otherwise get past the CRC). Whatever
// decodes must encode again to bytes that decode to the same shard, and
// any shorter prefix of an accepted shard must be refused.
func FuzzDecode(f *testing.F) {
	addShardSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzlimit.Start(t)()
		_, _ = Decode(data)
		if len(data) < trailerBytes {
			return
		}
		body := data[:len(data)-trailerBytes]
		s, err := decode(withCRC(body), fuzzBudget)
		if err != nil {
			return
		}
		raw, err := Encode(s)
		if err != nil {
			t.Fatalf("decoded shard does not encode: %v", err)
		}
		again, err := Decode(raw)
		if err != nil {
			t.Fatalf("re-encoded shard does not decode: %v", err)
		}
		if diff := shardDiff(s, again); diff != "" {
			t.Fatalf("re-encoded shard differs: %s", diff)
		}
		if len(body) > headerFixedBytes {
			if _, err := decode(withCRC(body[:len(body)-1]), fuzzBudget); err == nil {
				t.Fatalf("a shard cut one byte short decoded")
			}
		}
	})
}

// FuzzOpenEnvelope checks that OpenEnvelope never panics and accepts only
// the one canonical script for a payload: whatever it opens, Envelope
// rebuilds byte for byte.
func FuzzOpenEnvelope(f *testing.F) {
	gz, err := Compress([]byte("seed"))
	if err != nil {
		f.Fatal(err)
	}
	good := Envelope(ID(gz), gz)
	f.Add(good)
	f.Add(Envelope(ID(nil), nil))
	f.Add(good[:len(good)-1])
	f.Add([]byte(`__dsightShard("00","");` + "\n"))
	f.Fuzz(func(t *testing.T, script []byte) {
		defer fuzzlimit.Start(t)()
		id, gz, err := OpenEnvelope(script)
		if err != nil {
			return
		}
		if ID(gz) != id {
			t.Fatalf("id %s does not match its payload", id)
		}
		if rebuilt := Envelope(id, gz); !bytes.Equal(rebuilt, script) {
			t.Fatalf("accepted a non-canonical envelope:\n%q\nrebuilds as\n%q", script, rebuilt)
		}
	})
}

// FuzzDecompress checks that Decompress never panics and holds its output
// limit (a small one here, so the fuzzer cannot spend its time inflating).
func FuzzDecompress(f *testing.F) {
	for _, s := range roundTripCases() {
		raw, err := Encode(s)
		if err != nil {
			f.Fatal(err)
		}
		gz, err := Compress(raw)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(gz)
	}
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, gz []byte) {
		defer fuzzlimit.Start(t)()
		raw, err := decompress(gz, limit)
		if err == nil && len(raw) > limit {
			t.Fatalf("decompress returned %d bytes over its limit of %d", len(raw), limit)
		}
	})
}
