package shard

import (
	"bytes"
	"compress/gzip"
	"regexp"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

func TestPipelineRoundTrip(t *testing.T) {
	s := roundTripCases()["hostile strings"]
	raw, err := Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := Compress(raw)
	if err != nil {
		t.Fatal(err)
	}
	id := ID(gz)
	script := Envelope(id, gz)

	// The script is one line of a fixed shape whatever the strings inside:
	// nothing can close the literal, open a tag or end the script early.
	shape := regexp.MustCompile(`^__dsightShard\("[0-9a-f]{64}","[A-Za-z0-9+/]*={0,2}"\);\n$`)
	if !shape.Match(script) {
		t.Fatalf("envelope does not have the expected shape: %.200q", script)
	}
	for _, bad := range []string{"<", ">", "</script", "'", "\\"} {
		if bytes.Contains(script, []byte(bad)) {
			t.Fatalf("envelope contains %q", bad)
		}
	}

	gotID, gotGz, err := OpenEnvelope(script)
	if err != nil {
		t.Fatal(err)
	}
	if gotID != id || !bytes.Equal(gotGz, gz) {
		t.Fatal("OpenEnvelope did not return what Envelope wrapped")
	}
	gotRaw, err := Decompress(gotGz)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(gotRaw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := shardDiff(s, got); diff != "" {
		t.Fatal(diff)
	}
}

func TestCompressHeaderIsFixed(t *testing.T) {
	gz, err := Compress([]byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" || zr.Comment != "" || zr.Extra != nil {
		t.Fatalf("gzip header carries data: %+v", zr.Header)
	}
	// Flags byte 0 (no name, comment, extra), mtime 0.
	if !bytes.Equal(gz[3:8], []byte{0, 0, 0, 0, 0}) {
		t.Fatalf("gzip header bytes 3..7 = % x, want zeros", gz[3:8])
	}
}

func TestDecompressErrors(t *testing.T) {
	good, err := Compress(bytes.Repeat([]byte("shard "), 100))
	if err != nil {
		t.Fatal(err)
	}
	twoMembers := append(bytes.Clone(good), good...)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-5] ^= 1 // last byte of the CRC-32 in the gzip trailer
	tests := []struct {
		name    string
		gz      []byte
		limit   int64
		wantErr string
	}{
		{"empty", nil, maxRawBytes, "EOF"},
		{"not gzip", []byte("hello world"), maxRawBytes, "invalid header"},
		{"truncated", good[:len(good)-3], maxRawBytes, "unexpected EOF"},
		{"bad crc", badCRC, maxRawBytes, "checksum"},
		{"two members", twoMembers, maxRawBytes, "trailing bytes"},
		{"over the limit", good, 599, "output exceeds 599 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decompress(tt.gz, tt.limit)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("decompress error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	if raw, err := decompress(good, 600); err != nil || len(raw) != 600 {
		t.Fatalf("decompress at exactly the limit: %d bytes, %v", len(raw), err)
	}
}

func TestOpenEnvelopeErrors(t *testing.T) {
	gz, err := Compress([]byte("payload"))
	if err != nil {
		t.Fatal(err)
	}
	id := ID(gz)
	good := string(Envelope(id, gz))
	otherID := ID([]byte("something else"))
	b64 := good[len(envelopePrefix)+idLen+len(envelopeMiddle) : len(good)-len(envelopeSuffix)]
	tests := []struct {
		name    string
		script  string
		wantErr string
	}{
		{"empty", "", "missing __dsightShard"},
		{"other callback", strings.Replace(good, "__dsightShard", "__shard", 1), "missing __dsightShard"},
		{"short id", `__dsightShard("abc","` + b64 + "\");\n", "truncated id"},
		{"uppercase id", strings.Replace(good, id, strings.ToUpper(id), 1), "lowercase hex"},
		{"wrong id", strings.Replace(good, id, otherID, 1), "does not match the payload's sha256"},
		{"single quotes", strings.Replace(good, `","`, `','`, 1), "malformed separator"},
		{"no newline", strings.TrimSuffix(good, "\n"), "missing"},
		{"extra statement", good + "alert(1);\n", "missing"},
		{"newline in payload", strings.Replace(good, b64, b64[:4]+"\n"+b64[4:], 1), "not standard base64"},
		{"url alphabet", strings.Replace(good, b64, strings.NewReplacer("+", "-", "/", "_").Replace(b64)+"-_", 1), "not standard base64"},
		{"bad padding", strings.Replace(good, b64, b64+"=", 1), "payload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := OpenEnvelope([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("OpenEnvelope error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestEnvelopeRefusesUnsafeID(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Envelope accepted an id that is not hex")
		}
	}()
	Envelope(`");alert(1);//`+strings.Repeat("0", 50), nil)
}

func TestIDIsLowercaseSHA256(t *testing.T) {
	// sha256("") from FIPS 180-2 test vectors.
	if got, want := ID(nil), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Fatalf("ID(nil) = %s, want %s", got, want)
	}
}

// A pooled writer, reused across shards, writes the bytes a fresh one does:
// content-hashed names depend on it.
func TestCompressReuseIsDeterministic(t *testing.T) {
	a := bytes.Repeat([]byte("dsight shard a "), 5000)
	b := make([]byte, 70000)
	for i := range b {
		b[i] = byte(i * 2654435761 >> 13)
	}
	first, err := Compress(a)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := Compress(b); err != nil {
			t.Fatal(err)
		}
		again, err := Compress(a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, again) {
			t.Fatal("a reused writer compressed the same shard differently")
		}
	}
	var fresh bytes.Buffer
	zw, _ := kgzip.NewWriterLevel(&fresh, compressionLevel)
	zw.Write(a)
	zw.Close()
	if !bytes.Equal(first, fresh.Bytes()) {
		t.Fatal("pooled output differs from a fresh writer's")
	}
}
