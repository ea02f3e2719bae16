package shard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/flate"
)

// A shard's gzip member (RFC 1952) is read here, its header and trailer
// around klauspost's inflater, in every build. klauspost's gzip package
// would bring the standard library's compress/gzip with it, and through
// it time's parsing and formatting (its Header's ModTime) and
// compress/flate's encoder tables, built by its initialisers: ~100 KB of
// the page's wasm that never runs (docs/measurements.md, issue 17).

var (
	errGzipHeader   = errors.New("gzip: invalid header")
	errGzipChecksum = errors.New("gzip: invalid checksum")
)

// The header's flag bits (the reserved ones are ignored, as by
// compress/gzip), and the longest name or comment it reads.
const (
	gzipHCRC    = 1 << 1
	gzipExtra   = 1 << 2
	gzipName    = 1 << 3
	gzipComment = 1 << 4

	maxGzipString = 512
)

// gunzipper reads one gzip member from a bytes.Reader and leaves the
// reader just past the member's trailer. Its source is a bytes.Reader (an
// io.ByteReader), so the inflater reads no byte beyond the deflate stream.
type gunzipper struct {
	in   *bytes.Reader
	fr   io.ReadCloser // klauspost's inflater; a flate.Resetter
	crc  uint32
	size uint32
	err  error // sticky: the trailer's verdict, or the first failure
}

// newGunzipper reads the member's header from in.
func newGunzipper(in *bytes.Reader) (*gunzipper, error) {
	z := &gunzipper{}
	if err := z.Reset(in); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset starts reading a new member from in, keeping the inflater's
// tables: a reader's cost ~40 KB, and a core has a frame per table.
func (z *gunzipper) Reset(in *bytes.Reader) error {
	*z = gunzipper{in: in, fr: z.fr}
	if err := readGzipHeader(in); err != nil {
		z.err = err
		return err
	}
	if z.fr == nil {
		z.fr = flate.NewReader(in)
	} else if err := z.fr.(flate.Resetter).Reset(in, nil); err != nil {
		z.err = err
		return err
	}
	return nil
}

// readGzipHeader reads a member's header: its fixed ten bytes, then the
// optional extra field, name, comment and header CRC its flags announce.
func readGzipHeader(in *bytes.Reader) error {
	var fixed [10]byte
	if _, err := io.ReadFull(in, fixed[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errGzipHeader
		}
		return err
	}
	if fixed[0] != 0x1f || fixed[1] != 0x8b || fixed[2] != 8 {
		return errGzipHeader
	}
	flg := fixed[3]
	sum := crc32.ChecksumIEEE(fixed[:])
	if flg&gzipExtra != 0 {
		var n [2]byte
		if _, err := io.ReadFull(in, n[:]); err != nil {
			return noEOF(err)
		}
		sum = crc32.Update(sum, crc32.IEEETable, n[:])
		extra := make([]byte, binary.LittleEndian.Uint16(n[:]))
		if _, err := io.ReadFull(in, extra); err != nil {
			return noEOF(err)
		}
		sum = crc32.Update(sum, crc32.IEEETable, extra)
	}
	for _, bit := range [2]byte{gzipName, gzipComment} {
		if flg&bit == 0 {
			continue
		}
		// A zero-terminated string, of at most 512 bytes with its zero as
		// compress/gzip reads it.
		for n := 0; ; n++ {
			if n == maxGzipString {
				return errGzipHeader
			}
			c, err := in.ReadByte()
			if err != nil {
				return noEOF(err)
			}
			sum = crc32.Update(sum, crc32.IEEETable, []byte{c})
			if c == 0 {
				break
			}
		}
	}
	if flg&gzipHCRC != 0 {
		var h [2]byte
		if _, err := io.ReadFull(in, h[:]); err != nil {
			return noEOF(err)
		}
		if binary.LittleEndian.Uint16(h[:]) != uint16(sum) {
			return errGzipHeader
		}
	}
	return nil
}

// noEOF turns the end of the input inside a header or trailer into the
// truncation it is.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Read inflates; at the end of the deflate stream it checks the trailer
// (the CRC-32 and size of what was inflated) before answering io.EOF.
func (z *gunzipper) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	n, err := z.fr.Read(p)
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p[:n])
	z.size += uint32(n)
	if err != io.EOF {
		z.err = err
		return n, err
	}
	var trailer [8]byte
	if _, err := io.ReadFull(z.in, trailer[:]); err != nil {
		z.err = noEOF(err)
		return n, z.err
	}
	if binary.LittleEndian.Uint32(trailer[:4]) != z.crc || binary.LittleEndian.Uint32(trailer[4:]) != z.size {
		z.err = errGzipChecksum
		return n, z.err
	}
	z.err = io.EOF
	return n, io.EOF
}

// Close releases the inflater's input.
func (z *gunzipper) Close() error {
	if z.fr == nil {
		return nil
	}
	return z.fr.Close()
}
