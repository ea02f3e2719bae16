package sqlstore

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The join's evidence rows end with the import, and the store lays them
// out while the report renders: its evidence tables come after its
// metric points and requests, by when a 1M-request build has its highest
// live heap (the render's core encode). What the rows hold in memory
// until then, a group a record and a key a binding (32 and 24 MB at 1M
// requests), is spilled when they end and read back when the store's
// indexes need it (keptRows).

// Sizes of a spilled group and binding key.
const (
	keptGroupSize = 32
	keptKeySize   = 12
)

// keptRows are the groups and binding keys of ended evidence rows,
// spilled to a file: the groups first, then the keys.
type keptRows struct {
	f      *os.File
	groups int
	keys   int
}

// keep spills p's groups and binding keys to f and lets go of them.
func (p *evidencePass) keep(f *os.File) (*keptRows, error) {
	out := bufio.NewWriterSize(f, 1<<20)
	var b [keptGroupSize]byte
	for i := range p.groups {
		g := &p.groups[i]
		binary.LittleEndian.PutUint64(b[0:], uint64(g.firstSpan))
		binary.LittleEndian.PutUint64(b[8:], uint64(g.at))
		binary.LittleEndian.PutUint32(b[16:], uint32(g.owner))
		binary.LittleEndian.PutUint32(b[20:], uint32(g.spans))
		binary.LittleEndian.PutUint32(b[24:], uint32(g.stageLen))
		binary.LittleEndian.PutUint32(b[28:], uint32(g.bindLen))
		if _, err := out.Write(b[:]); err != nil {
			return nil, err
		}
	}
	for _, k := range p.bkeys {
		binary.LittleEndian.PutUint32(b[0:], k.worker)
		binary.LittleEndian.PutUint32(b[4:], uint32(k.request))
		binary.LittleEndian.PutUint32(b[8:], uint32(k.ordinal))
		if _, err := out.Write(b[:keptKeySize]); err != nil {
			return nil, err
		}
	}
	if err := out.Flush(); err != nil {
		return nil, err
	}
	k := &keptRows{f: f, groups: len(p.groups), keys: len(p.bkeys)}
	p.groups, p.bkeys = nil, nil
	return k, nil
}

// eachGroup calls f with each group in record order until it returns
// false.
func (k *keptRows) eachGroup(f func(g evGroup) bool) error {
	r := bufio.NewReaderSize(io.NewSectionReader(k.f, 0, keptGroupSize*int64(k.groups)), 1<<16)
	var b [keptGroupSize]byte
	for range k.groups {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return fmt.Errorf("the spilled evidence groups: %w", err)
		}
		g := evGroup{
			firstSpan: int64(binary.LittleEndian.Uint64(b[0:])),
			at:        int64(binary.LittleEndian.Uint64(b[8:])),
			owner:     int32(binary.LittleEndian.Uint32(b[16:])),
			spans:     int32(binary.LittleEndian.Uint32(b[20:])),
			stageLen:  int32(binary.LittleEndian.Uint32(b[24:])),
			bindLen:   int32(binary.LittleEndian.Uint32(b[28:])),
		}
		if !f(g) {
			return nil
		}
	}
	return nil
}

// readGroups reads the groups back, in record order.
func (k *keptRows) readGroups() ([]evGroup, error) {
	groups := make([]evGroup, 0, k.groups)
	err := k.eachGroup(func(g evGroup) bool {
		groups = append(groups, g)
		return true
	})
	return groups, err
}

// readKeys reads the binding keys back, in their pass order.
func (k *keptRows) readKeys() ([]bindingKey, error) {
	at := keptGroupSize * int64(k.groups)
	r := bufio.NewReaderSize(io.NewSectionReader(k.f, at, keptKeySize*int64(k.keys)), 1<<16)
	keys := make([]bindingKey, k.keys)
	var b [keptKeySize]byte
	for i := range keys {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("the spilled binding keys: %w", err)
		}
		keys[i] = bindingKey{
			worker:  binary.LittleEndian.Uint32(b[0:]),
			request: int32(binary.LittleEndian.Uint32(b[4:])),
			ordinal: int32(binary.LittleEndian.Uint32(b[8:])),
		}
	}
	return keys, nil
}

// readKept reads back what the join's rows spilled when they ended, if
// they did, before the pass's indexes: the groups, or the binding keys
// as well (keys).
func (p *evidencePass) readKept(keys bool) (err error) {
	if p.kept == nil {
		return nil
	}
	if p.groups == nil {
		if p.groups, err = p.kept.readGroups(); err != nil {
			return err
		}
	}
	if keys && p.bkeys == nil {
		p.bkeys, err = p.kept.readKeys()
	}
	return err
}
