//go:build js && wasm

// Command edge is the Cloudflare Workers edge for published reports: it
// serves internal/edge's bucket layout (many reports under /r/<id>/…, short
// links under /v/<id>) from an R2 bucket bound as REPORTS, or, on a local
// workerd, from a disk directory bound as the service BUCKET_DIR.
//
// It is built with GOOS=js GOARCH=wasm and github.com/syumai/workers (make
// edge); edge.mjs wraps syumai's worker.mjs so that a body the handler
// already compressed is sent as is.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/dsight/dsight/internal/edge"
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"
	"github.com/syumai/workers/cloudflare/r2"
)

func main() {
	// Minting short links from the page writes to the bucket: opt in with
	// the variable DSIGHT_MINT_LINKS = "true".
	workers.Serve(&edge.Handler{Store: store{}, Mint: cloudflare.Getenv("DSIGHT_MINT_LINKS") == "true"})
}

// store picks the binding at each read: the runtime context, and with it
// the environment, belongs to the request being served.
type store struct{}

func (store) backend() (edge.Store, error) {
	if b, err := r2.NewBucket("REPORTS"); err == nil {
		return r2Store{b}, nil
	}
	if dir := cloudflare.GetBinding("BUCKET_DIR"); !dir.IsUndefined() && !dir.IsNull() {
		return diskStore{fetch.NewClient(fetch.WithBinding(dir))}, nil
	}
	return nil, errors.New("no REPORTS bucket and no BUCKET_DIR service is bound")
}

func (s store) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	return b.Get(ctx, key)
}

func (s store) Has(ctx context.Context, key string) (bool, error) {
	b, err := s.backend()
	if err != nil {
		return false, err
	}
	return b.Has(ctx, key)
}

func (s store) Put(ctx context.Context, key string, b []byte) error {
	be, err := s.backend()
	if err != nil {
		return err
	}
	p, ok := be.(edge.Putter)
	if !ok {
		return errors.New("the bound storage is read-only")
	}
	return p.Put(ctx, key, b)
}

type r2Store struct{ b *r2.Bucket }

func (s r2Store) Put(_ context.Context, key string, b []byte) error {
	_, err := s.b.Put(key, io.NopCloser(bytes.NewReader(b)), &r2.PutOptions{HTTPMetadata: r2.HTTPMetadata{ContentType: "application/json"}})
	return err
}

func (s r2Store) Get(_ context.Context, key string) ([]byte, error) {
	o, err := s.b.Get(key)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, edge.ErrNotFound
	}
	return io.ReadAll(o.Body)
}

func (s r2Store) Has(_ context.Context, key string) (bool, error) {
	o, err := s.b.Head(key)
	return o != nil, err
}

// diskStore reads a workerd disk service: the bucket's keys are its paths.
type diskStore struct{ c *fetch.Client }

func (s diskStore) do(ctx context.Context, method, key string) (*http.Response, error) {
	req, err := fetch.NewRequest(ctx, method, "http://bucket/"+key, nil)
	if err != nil {
		return nil, err
	}
	res, err := s.c.Do(req, nil)
	if err != nil {
		return nil, err
	}
	switch res.StatusCode {
	case http.StatusOK:
		return res, nil
	case http.StatusNotFound:
		res.Body.Close()
		return nil, edge.ErrNotFound
	default:
		res.Body.Close()
		return nil, fmt.Errorf("bucket %s %s: %s", method, key, res.Status)
	}
}

// Put needs the disk service to be writable (workerd.capnp.tmpl).
func (s diskStore) Put(ctx context.Context, key string, b []byte) error {
	req, err := fetch.NewRequest(ctx, http.MethodPut, "http://bucket/"+key, bytes.NewReader(b))
	if err != nil {
		return err
	}
	res, err := s.c.Do(req, nil)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("bucket PUT %s: %s", key, res.Status)
	}
	return nil
}

func (s diskStore) Get(ctx context.Context, key string) ([]byte, error) {
	res, err := s.do(ctx, http.MethodGet, key)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

func (s diskStore) Has(ctx context.Context, key string) (bool, error) {
	res, err := s.do(ctx, http.MethodHead, key)
	if errors.Is(err, edge.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	res.Body.Close()
	return true, nil
}
