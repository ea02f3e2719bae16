package query

import (
	"encoding/json"
	"strings"
	"testing"
)

// A worker no collection of the report names is not_found for the request
// kinds too, as for metrics and iterations: a typo never answers as an
// empty list. A known worker that served a request still filters.
func TestRequestKindsRefuseAnUnknownWorker(t *testing.T) {
	for _, c := range []struct {
		name  string
		e     func(t *testing.T) *Engine
		known string
		typo  string
	}{
		{"client only", engine, "", "decode-0"},
		{"server evidence", func(t *testing.T) *Engine {
			e, err := FromDataset(serverFixture())
			if err != nil {
				t.Fatal(err)
			}
			return e
		}, "decode-0", "decode-1"},
	} {
		e := c.e(t)
		for _, op := range []string{"requests", "sessions", "timeline"} {
			var env envelopeCode
			json.Unmarshal(e.Handle([]byte(`{"op":"`+op+`","args":{"worker":"`+c.typo+`"}}`)), &env)
			if env.OK || env.Code != CodeNotFound || !strings.Contains(env.Error, `no worker "`+c.typo+`"`) {
				t.Errorf("%s: %s --worker %s: %+v, want not_found", c.name, op, c.typo, env)
			}
			if c.known == "" {
				continue
			}
			json.Unmarshal(e.Handle([]byte(`{"op":"`+op+`","args":{"worker":"`+c.known+`"}}`)), &env)
			if !env.OK {
				t.Errorf("%s: %s --worker %s: %+v", c.name, op, c.known, env)
			}
		}
	}
}

type envelopeCode struct {
	OK    bool   `json:"ok"`
	Code  Code   `json:"code"`
	Error string `json:"error"`
}
