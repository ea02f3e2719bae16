package report

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// ContentSecurityPolicy is the policy of a report page whose inline scripts
// are inlineScripts (the text of each executable <script> element, exactly
// as written). Scripts run only if their hash is listed; 'strict-dynamic'
// lets those scripts add the detail/ shard scripts, and without
// 'unsafe-inline' or a file: source an injected inline handler, an inline
// <script> or a script from any other path is blocked. The page writes it
// into a <meta> element; a static host's headers file should send the same
// string, which is why it is built in one place.
func ContentSecurityPolicy(inlineScripts ...[]byte) string {
	src := make([]string, 0, len(inlineScripts)+2)
	for _, s := range inlineScripts {
		sum := sha256.Sum256(s)
		src = append(src, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
	}
	src = append(src, "'strict-dynamic'", "'wasm-unsafe-eval'")
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + strings.Join(src, " "),
		"style-src 'unsafe-inline'",
		"img-src data: blob:",
		"connect-src 'none'",
		"base-uri 'none'",
		"form-action 'none'",
		"object-src 'none'",
	}, "; ")
}
