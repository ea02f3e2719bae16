
// Through the command: a misapplied flag fails with exit 1 and the
// engine's code on stderr; a usage error still exits 2.
func TestQueryBadArgsExit(t *testing.T) {
	needAssets(t)
	out := t.TempDir() + "/report"
	if code, _, stderr := dsight(t, "build", genRun(t), "-o", out); code != 0 {
		t.Fatalf("build: %s", stderr)
	}
	code, _, stderr := dsight(t, "query", out, "requests", "--sort", "ttft")
	var env envelope
	if err := json.Unmarshal([]byte(stderr), &env); err != nil || code != 1 || env.Code != query.CodeBadArgs || !strings.Contains(env.Error, `requests takes no argument "sort"`) {
		t.Fatalf("exit %d, %v: %s", code, err, stderr)
	}
	if code, _, stderr = dsight(t, "query", out, "request", "--request", "nope"); code != 1 || !strings.Contains(stderr, `"code":"not_found"`) {
		t.Fatalf("unknown request: exit %d: %s", code, stderr)
	}
	if code, _, _ = dsight(t, "query", out, "requests", "extra"); code != 2 {
		t.Fatalf("usage: exit %d", code)
	}
}
