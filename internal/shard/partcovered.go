package shard

// AppendOpenPartCovered is AppendOpenPart for a part whose payload bytes a
// reader checks under another hash that covers every one of them (the
// frame of a framed shard the part lies within): the envelope, its id and
// its units are checked as AppendOpenPart checks them, but the payload is
// not hashed a second time here. The id returned is the one the script
// names, for the reader to compare with the manifest's. A base64 envelope
// is checked whole, as before.
func AppendOpenPartCovered(dst, script []byte) (id string, out []byte, err error) {
	id, out, _, err = appendPartUnhashed(dst, script)
	return id, out, err
}
