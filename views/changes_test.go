package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/audit"
)

// TestTime writes a time as the console does everywhere: UTC to the
// minute with its zone, the whole time in datetime and title, never
// wrapped.
func TestTime(t *testing.T) {
	at := time.Date(2026, 12, 2, 15, 7, 9, 500_000_000, time.FixedZone("CET", 3600))
	var b strings.Builder
	if err := Time(at).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	want := `<time class="when" datetime="2026-12-02T14:07:09Z" title="2026-12-02T14:07:09.5Z">2026-12-02 14:07 UTC</time>`
	if b.String() != want {
		t.Errorf("Time = %s, want %s", b.String(), want)
	}
	if got := FormatDate(at); got != "2026-12-02" {
		t.Errorf("FormatDate = %s", got)
	}
}

// timeFormatting is what writes a time in a page by itself: a <time>
// element or a layout of time.Format.
var timeFormatting = regexp.MustCompile(`<time|\.Format\(|time\.RFC3339|"2006-|"Jan |"Mon `)

// TestPagesWriteTimesWithTime: no page writes a time by itself; every one
// shows its times with Time (or its day with FormatDate), so that the
// console has one format of time.
func TestPagesWriteTimesWithTime(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templ file: %v", err)
	}
	for _, f := range files {
		if f == "changes.templ" {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if timeFormatting.MatchString(line) {
				t.Errorf("%s:%d writes a time by itself, not with Time or FormatDate: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestChanges lists a change as its sentence: the actor, the words, the
// objects linked, the fields before → after, its time and namespace.
func TestChanges(t *testing.T) {
	at := time.Date(2026, 12, 2, 14, 7, 0, 0, time.UTC)
	row := ChangeRow{ID: 7, At: at, Actor: "acme-admin", Namespace: "acme/prod",
		Parts:  []SentencePart{{Text: "attached web-01/0 to subnet "}, {Text: "web", Href: "/subnets/acme/prod/main/web"}, {Text: ": 10.42.1.7"}},
		Fields: []audit.Field{{Name: "note", After: "x"}}}
	var b strings.Builder
	if err := Changes(ChangesProps{Rows: []ChangeRow{row}, TestID: "audit", Namespaces: true}).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<li class="change" data-testid="audit-7">`,
		`<strong data-testid="audit-actor">acme-admin</strong> attached web-01/0 to subnet <a href="/subnets/acme/prod/main/web" data-testid="audit-link">web</a>: 10.42.1.7</p>`,
		`<span class="field-name">note:</span> <span class="before">—</span> → <span class="after">x</span>`,
		`2026-12-02 14:07 UTC</time>`,
		`<span class="mono" data-testid="audit-namespace">acme/prod</span>`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the change renders\n%s\nwithout %s", b.String(), want)
		}
	}
}
