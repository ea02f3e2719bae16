package query

import (
	"fmt"
	"reflect"
	"testing"
)

// TestTimelineFocusPage: with focus_page the timeline answers, in one
// question, the page the page's pager would move to after asking for
// focus_index first: the page of limit sessions holding the request's
// session, or the given offset's when that session is filtered out.
func TestTimelineFocusPage(t *testing.T) {
	many, err := FromDataset(tracedFixture(60)) // seven sessions
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*Engine{"fixture": engine(t), "seven sessions": many} {
		reqs, errText := ask(t, e, `{"op":"requests","args":{"limit":1000}}`)
		if errText != "" {
			t.Fatal(errText)
		}
		for _, id := range ids(reqs) {
			for _, sort := range []string{"start", "ttft", "latency", "count"} {
				for _, limit := range []int{1, 2, 7} {
					for _, search := range []string{"", "zz-no-such-request"} {
						base := fmt.Sprintf(`"id":%q,"sort":%q,"search":%q,"expanded":["a","b"]`, id, sort, search)
						probe, errText := ask(t, e, `{"op":"timeline","args":{`+base+`,"limit":0}}`)
						if errText != "" {
							t.Fatal(errText)
						}
						offset := 3
						if f := int(probe["focus_index"].(float64)); f >= 0 {
							offset = f / limit * limit
						}
						want, _ := ask(t, e, fmt.Sprintf(`{"op":"timeline","args":{%s,"offset":%d,"limit":%d}}`, base, offset, limit))
						got, errText := ask(t, e, fmt.Sprintf(`{"op":"timeline","args":{%s,"focus_page":true,"offset":3,"limit":%d}}`, base, limit))
						if errText != "" {
							t.Fatal(errText)
						}
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%s: %s limit %d: focus_page answered\n%v\nwant\n%v", name, base, limit, got, want)
						}
					}
				}
			}
		}
	}
}
