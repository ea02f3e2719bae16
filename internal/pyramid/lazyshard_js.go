//go:build js

package pyramid

import "errors"

// The page's engine decodes every summary whole, as before chunks were
// decoded on demand: the frame decoders that reading a shard table by
// table needs would add some 50 KB to a wasm at the edge of its budget,
// and the page's charts read every chunk of what they draw anyway.

// OpenShardLazy decodes raw whole; lazy is always nil in the page.
func OpenShardLazy(raw []byte) (p *Pyramid, lazy *LazyShard, err error) {
	p, err = DecodeShard(raw)
	return p, nil, err
}

// errNoFrames: the page hands over whole shards (LoadShard).
var errNoFrames = errors.New("the page's engine reads metric shards whole")

// OpenShardFrames is refused in the page, which reads shards whole.
func OpenShardFrames(head []byte, shardBytes int, table func(k int) ([]byte, error)) (*Pyramid, *LazyShard, error) {
	return nil, nil, errNoFrames
}

// FillChunks is refused in the page, which holds no LazyShard.
func (s *LazyShard) FillChunks(p *Pyramid, ids []int) (*Pyramid, bool, error) {
	return nil, false, errNoFrames
}
