package shard

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// stdlibGunzip reads one gzip member as compress/gzip does, refusing bytes
// after it: the reader the shard's own member reader must agree with.
func stdlibGunzip(gz []byte, limit int64) ([]byte, error) {
	in := bytes.NewReader(gz)
	zr, err := gzip.NewReader(in)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	raw, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, errors.New("over the limit")
	}
	if in.Len() != 0 {
		return nil, errors.New("trailing bytes")
	}
	return raw, nil
}

// member is a gzip member of raw written by compress/gzip with hdr.
func member(t testing.TB, raw []byte, hdr gzip.Header) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Header = hdr
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withHeaderCRC sets FHCRC on a member written without an extra field,
// name or comment, inserting the header CRC after the fixed ten bytes.
func withHeaderCRC(gz []byte, corrupt bool) []byte {
	head := append([]byte(nil), gz[:10]...)
	head[3] |= gzipHCRC
	sum := uint16(crc32.ChecksumIEEE(head))
	if corrupt {
		sum++
	}
	out := binary.LittleEndian.AppendUint16(head, sum)
	return append(out, gz[10:]...)
}

func TestGunzipReadsEveryHeaderField(t *testing.T) {
	raw := []byte(strings.Repeat("dsight evidence ", 500))
	plain := member(t, raw, gzip.Header{})
	cases := []struct {
		name string
		gz   []byte
		err  string
	}{
		{"plain", plain, ""},
		{"name, comment and extra", member(t, raw, gzip.Header{Name: "core.bin", Comment: "a shard", Extra: []byte{1, 2, 3, 4}}), ""},
		{"header CRC", withHeaderCRC(plain, false), ""},
		{"wrong header CRC", withHeaderCRC(plain, true), "invalid header"},
		{"name of 511 bytes", member(t, raw, gzip.Header{Name: strings.Repeat("n", 511)}), ""},
		{"name of 512 bytes", member(t, raw, gzip.Header{Name: strings.Repeat("n", 512)}), "invalid header"},
		{"wrong CRC-32", flip(plain, len(plain)-8), "invalid checksum"},
		{"wrong size", flip(plain, len(plain)-1), "invalid checksum"},
		{"trailer cut", plain[:len(plain)-3], "unexpected EOF"},
		{"header cut", plain[:7], "invalid header"},
		{"not deflate", append([]byte{0x1f, 0x8b, 7}, plain[3:]...), "invalid header"},
		{"empty", nil, "EOF"},
		{"a second member", append(append([]byte(nil), plain...), plain...), "trailing bytes"},
	}
	for _, c := range cases {
		got, err := Decompress(c.gz)
		want, wantErr := stdlibGunzip(c.gz, maxRawBytes)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: err %v, compress/gzip's %v", c.name, err, wantErr)
		}
		if c.err == "" {
			if err != nil || !bytes.Equal(got, raw) || !bytes.Equal(want, raw) {
				t.Errorf("%s: %d bytes, err %v; want the %d bytes written", c.name, len(got), err, len(raw))
			}
		} else if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err %v, want one saying %q", c.name, err, c.err)
		}
		// A frame of the same member, through the reused reader.
		var f FrameInflater
		if _, err := f.Inflate(plain, len(raw)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Inflate(c.gz, len(raw)); (err == nil) != (c.err == "") {
			t.Errorf("%s: a reused frame reader says %v", c.name, err)
		}
	}
}

func flip(b []byte, at int) []byte {
	out := append([]byte(nil), b...)
	out[at] ^= 0x40
	return out
}

// FuzzGunzipAgreesWithStdlib checks that the shard's member reader accepts
// what compress/gzip accepts (one member, nothing after it) and inflates
// it to the same bytes.
func FuzzGunzipAgreesWithStdlib(f *testing.F) {
	raw := []byte(strings.Repeat("span attributes ", 64))
	f.Add(member(f, raw, gzip.Header{}))
	f.Add(member(f, raw, gzip.Header{Name: "n", Comment: "c", Extra: []byte("xy")}))
	f.Add(withHeaderCRC(member(f, raw, gzip.Header{}), false))
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, gz []byte) {
		defer fuzzlimit.Start(t)()
		got, err := decompress(gz, limit)
		want, wantErr := stdlibGunzip(gz, limit)
		if (err == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("got %d bytes, err %v; compress/gzip %d bytes, err %v", len(got), err, len(want), wantErr)
		}
	})
}
