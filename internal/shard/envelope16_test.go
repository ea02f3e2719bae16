package shard

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dsight/dsight/internal/fuzzlimit"
)

// Every length round-trips, the byte count is recovered from the units
// alone, and every unit is a character that cannot end the literal.
func TestBase32768RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		units := AppendBase32768(nil, b)
		if len(units) != 2*Units32768(n) {
			t.Fatalf("%d bytes: %d units, Units32768 says %d", n, len(units)/2, Units32768(n))
		}
		for i := 0; i < len(units); i += 2 {
			u := rune(units[i]) | rune(units[i+1])<<8
			if u < 0x3000 || u > 0xB07F || u > 0xAFFF && u < 0xB000 {
				t.Fatalf("%d bytes: unit U+%04X outside the alphabet", n, u)
			}
		}
		got, err := DecodeBase32768(units)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d bytes: got %x, %v; want %x", n, got, err, b)
		}
	}
}

// The dense script is UTF-16LE behind a byte order mark, of the one
// shape the page expects, and opens to what was wrapped.
func TestEnvelope16(t *testing.T) {
	gz := []byte(`"</script>\` + "\n\u2028" + strings.Repeat("x", 1000))
	id := ID(gz)
	script := Envelope16(id, gz)
	if len(script) != Envelope16Len(len(gz)) || len(script) > PartLen(len(gz)) {
		t.Fatalf("script is %d bytes; Envelope16Len says %d", len(script), Envelope16Len(len(gz)))
	}
	if !bytes.HasPrefix(script, []byte{0xff, 0xfe}) {
		t.Fatal("no UTF-16LE byte order mark")
	}
	u := make([]uint16, (len(script)-2)/2)
	for i := range u {
		u[i] = uint16(script[2+2*i]) | uint16(script[3+2*i])<<8
	}
	text := string(utf16.Decode(u))
	if !utf8.ValidString(text) || !strings.HasPrefix(text, `__dsightShard("`+id+`",function(){/*`) || !strings.HasSuffix(text, "*/});\n") {
		t.Fatalf("unexpected script %.120q", text)
	}
	body := text[len(`__dsightShard("`+id+`",function(){/*`) : len(text)-len("*/});\n")]
	if strings.ContainsAny(body, "\"\\\n\r\u2028\u2029<>") || strings.Contains(body, "*/") {
		t.Fatal("the payload holds a character that could end the literal or the script")
	}
	gotID, got, err := OpenPart(script)
	if err != nil || gotID != id || !bytes.Equal(got, gz) {
		t.Fatalf("OpenPart: %v", err)
	}
	// The base64 envelope still opens.
	if _, got, err := OpenPart(Envelope(id, gz)); err != nil || !bytes.Equal(got, gz) {
		t.Fatalf("OpenPart of a base64 envelope: %v", err)
	}
	other := Envelope16(ID([]byte("other")), []byte("other"))
	swapped := append(append([]byte{}, script[:len(prefix16)+2*idLen+len(middle16)]...), other[len(prefix16)+2*idLen+len(middle16):]...)
	if _, _, err := OpenPart(swapped); err == nil || !strings.Contains(err.Error(), "content hash mismatch") {
		t.Fatalf("a swapped payload opened: %v", err)
	}
	bad := bytes.Clone(script)
	bad[len(prefix16)+2*idLen+len(middle16)+1] = 0x20 // U+2xxx: outside the alphabet
	if _, _, err := OpenPart(bad); err == nil || !strings.Contains(err.Error(), "code unit 0") {
		t.Fatalf("a unit outside the alphabet opened: %v", err)
	}
}

func FuzzOpenPart(f *testing.F) {
	f.Add(Envelope16(ID([]byte("abc")), []byte("abc")))
	f.Add(Envelope(ID([]byte("abc")), []byte("abc")))
	f.Fuzz(func(t *testing.T, script []byte) {
		defer fuzzlimit.Start(t)()
		id, gz, err := OpenPart(script)
		if err != nil {
			return
		}
		if ID(gz) != id {
			t.Fatal("opened a payload whose hash is not its id")
		}
	})
}
