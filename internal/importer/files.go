package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"

	"github.com/dsight/dsight/internal/lineread"
	"github.com/dsight/dsight/internal/model"
)

// file is an open source file. *os.File is one; a test's opener wraps it to
// count what is read.
type file interface {
	io.ReadSeeker
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}

// openOS is the opener of a build that sets none.
func openOS(path string) (file, error) {
	f, err := lineread.Open(path)
	if err != nil {
		return nil, err // not a nil *os.File in a non-nil file
	}
	return f, nil
}

// held is a file kept open for readers that come back to it (a Tachometer
// capture is inspected, hashed and read), so that the build opens it once.
type held struct {
	f  file
	st fs.FileInfo
	// digest, once started (hashHeld), delivers the file's sha256 to
	// register, which would otherwise read the whole file again on its own.
	digest chan heldDigest
	got    *heldDigest
}

type heldDigest struct {
	sum []byte
	err error
}

// hashHeld starts hashing every held file on a goroutine of its own, so
// that a capture's sha256 (a pass over the whole file) is computed beside
// its read instead of before it.
func (b *build) hashHeld() {
	for _, h := range b.held {
		if h.digest != nil {
			continue
		}
		h.digest = make(chan heldDigest, 1)
		go func() {
			sum := sha256.New()
			_, err := io.Copy(sum, h.view())
			h.digest <- heldDigest{sum.Sum(nil), err}
		}()
	}
}

// sum waits for the digest hashHeld started; ok is false when none was.
func (h *held) sum() (d heldDigest, ok bool) {
	if h.digest == nil {
		return d, false
	}
	if h.got == nil {
		d := <-h.digest
		h.got = &d
	}
	return *h.got, true
}

// hold opens path once per build and keeps it open until closeHeld.
func (b *build) hold(path string) (*held, error) {
	if h := b.held[path]; h != nil {
		return h, nil
	}
	f, err := b.open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	h := &held{f: f, st: st}
	b.held[path] = h
	return h, nil
}

// view is one reader's own read position over a held file.
type view struct {
	*io.SectionReader
	st fs.FileInfo
}

func (h *held) view() view {
	return view{io.NewSectionReader(h.f, 0, h.st.Size()), h.st}
}

func (v view) Close() error               { return nil } // the build closes the file
func (v view) Stat() (fs.FileInfo, error) { return v.st, nil }

// openHeld opens a view of the held file, for a capture's inspection and
// read.
func (b *build) openHeld(path string) (file, error) {
	h, err := b.hold(path)
	if err != nil {
		return nil, err
	}
	return h.view(), nil
}

func (b *build) closeHeld() {
	for _, h := range b.held {
		h.sum() // no hashing outlives the file
		h.f.Close()
	}
}

// source is one evidence file being read: it is hashed while the parser
// reads it and registered once the parser is done.
type source struct {
	id        int
	path, rel string
	kind      string
	r         io.Reader // the file from its start
	closeFile func() error
	st        fs.FileInfo
	h         hash.Hash
	sum       []byte // the digest, when it was computed beside the read (hashHeld)
}

// openSource opens path (or takes the file held open for it) to be read
// from its start and registered as kind.
func (b *build) openSource(path, kind string) (*source, error) {
	var (
		r     io.Reader
		st    fs.FileInfo
		close = func() error { return nil }
	)
	if h := b.held[path]; h != nil {
		v := h.view()
		r, st = v, h.st
	} else {
		f, err := b.open(path)
		if err != nil {
			return nil, err
		}
		if st, err = f.Stat(); err != nil {
			f.Close()
			return nil, err
		}
		r, close = f, f.Close
	}
	d, res := b.d, b.res
	// Ids are handed out at open time so evidence refers to them while
	// parsing; the record itself is appended in finish, in id order.
	id := len(d.Sources) + res.pending
	res.pending++
	return &source{id: id, path: path, rel: relative(b.root, path), kind: kind, r: r, closeFile: close, st: st, h: sha256.New()}, nil
}

func (s *source) reader() io.Reader { return io.TeeReader(s.r, s.h) }

func (s *source) close() { s.closeFile() }

// finishSource hashes whatever the parser did not need to read and
// registers the source with the size and time it had when opened (Verify
// rechecks them).
func (b *build) finishSource(s *source) error {
	sum := s.sum
	if sum == nil {
		if _, err := io.Copy(s.h, s.r); err != nil {
			return err
		}
		sum = s.h.Sum(nil)
	}
	d, res := b.d, b.res
	res.pending--
	res.stamps = append(res.stamps, stamp{path: s.path, size: s.st.Size(), modTime: s.st.ModTime().UnixNano(), changeTime: changeTime(s.st)})
	d.Sources = append(d.Sources, model.Source{ID: s.id, Path: s.rel, Kind: s.kind, Bytes: s.st.Size(), SHA256: hex.EncodeToString(sum)})
	b.registered[s.path] = s.id
	return nil
}

// registerRead registers a file read before its turn (the OTel exports,
// decoded beside the other sources: startOTel) with the size and time it
// had when opened and the digest of its bytes, as readFile would have at
// this point.
func (b *build) registerRead(path, kind string, st fs.FileInfo, sum []byte) error {
	src := &source{id: len(b.d.Sources) + b.res.pending, path: path, rel: relative(b.root, path), kind: kind, st: st, sum: sum}
	b.res.pending++
	return b.finishSource(src)
}

// readFile reads one file from start to end through parse and registers
// it as kind.
func (b *build) readFile(path, kind string, parse func(src *source) error) (*source, error) {
	src, err := b.openSource(path, kind)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if err := parse(src); err != nil {
		return nil, err
	}
	if err := b.finishSource(src); err != nil {
		return nil, err
	}
	return src, nil
}

// register registers a file some package reads on its own terms (a capture
// file, through its held view) and returns its id and evidence path; a
// file registered earlier keeps its id.
func (b *build) register(path, kind string) (int, string, error) {
	if id, ok := b.registered[path]; ok {
		return id, relative(b.root, path), nil
	}
	src, err := b.openSource(path, kind)
	if err != nil {
		return 0, "", err
	}
	defer src.close()
	if h := b.held[path]; h != nil {
		if d, ok := h.sum(); ok {
			if d.err != nil {
				return 0, "", d.err
			}
			src.sum = d.sum
		}
	}
	if err := b.finishSource(src); err != nil {
		return 0, "", err
	}
	return src.id, src.rel, nil
}

// fanOut reads src once for several readers: each gets the whole file,
// in order, from the one pass; they run at once and a slow one holds the
// others back by at most one buffer. The first reader's error is the
// result; the others report theirs through their own closures, and one
// that stops early is drained so that it never stalls the rest.
func fanOut(r io.Reader, readers ...func(io.Reader) error) error {
	if len(readers) == 1 {
		return readers[0](r)
	}
	pipes := make([]*io.PipeWriter, 0, len(readers)-1)
	writers := make([]io.Writer, 0, len(readers)-1)
	done := make(chan struct{}, len(readers)-1)
	for _, read := range readers[1:] {
		pr, pw := io.Pipe()
		pipes, writers = append(pipes, pw), append(writers, pw)
		go func() {
			defer func() { done <- struct{}{} }()
			read(pr)
			io.Copy(io.Discard, pr) // the rest, if it stopped early
		}()
	}
	tee := io.TeeReader(r, io.MultiWriter(writers...))
	err := readers[0](tee)
	if err == nil {
		_, err = io.Copy(io.Discard, tee) // the others read to the end
	}
	for _, pw := range pipes {
		pw.CloseWithError(err) // nil: they see EOF
	}
	for range pipes {
		<-done
	}
	return err
}
