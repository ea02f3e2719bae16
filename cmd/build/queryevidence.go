package main

import "encoding/json"

// askedRequest is the request id a "request" or "lifecycle" question asks
// about, whose evidence is all its answer reads.
func askedRequest(req wireRequest) (string, bool) {
	if req.Op != "request" && req.Op != "lifecycle" {
		return "", false
	}
	for _, name := range []string{"id", "request"} {
		var id string
		if raw, ok := req.Args[name]; ok && json.Unmarshal(raw, &id) == nil {
			return id, true
		}
	}
	return "", false
}
