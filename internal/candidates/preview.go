package candidates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// MaxPreviewNext bounds PreviewInput.Next.
const MaxPreviewNext = 256

// PreviewInput is what a page or an API client asks of the enumerator
// before anything is committed.
type PreviewInput struct {
	// Name and Zone, when given, are checked as a new public pool's
	// (CheckName, CheckZone): the new-pool form checks every field.
	Name    *string     `json:"name,omitempty"`
	Zone    *string     `json:"zone,omitempty"`
	Pool    PoolSpec    `json:"pool"`
	Request RequestSpec `json:"request"`
	// Taken lists the addresses already held, as addresses and a-b ranges.
	Taken []string `json:"taken,omitempty"`
	// TakenRanges is the same in one string, entries separated by commas
	// ("10.0.0.2-10.0.0.9,10.0.0.12"): the compact form a page carries,
	// read much faster than a list.
	TakenRanges string `json:"takenRanges,omitempty"`
	// Next asks for that many free candidates, lowest first (0 means 1).
	Next int `json:"next,omitempty"`
	// Explain asks why these addresses are or are not available.
	Explain []string `json:"explain,omitempty"`
	// Map asks for an AddressMap.
	Map bool `json:"map,omitempty"`
}

// PreviewOutput answers a PreviewInput. Size and Free are exact for an
// IPv4 pool and math.MaxInt when they are more (an IPv6 pool);
// SizeCount and FreeCount are exact for both.
type PreviewOutput struct {
	Valid     bool          `json:"valid"`
	Errors    Errors        `json:"errors,omitempty"`
	Size      int           `json:"size"`
	Free      int           `json:"free"`
	SizeCount *Figure       `json:"sizeCount,omitempty"`
	FreeCount *Figure       `json:"freeCount,omitempty"`
	First     *netip.Addr   `json:"first,omitempty"` // lowest free candidate
	Last      *netip.Addr   `json:"last,omitempty"`  // highest free candidate
	Next      []netip.Addr  `json:"next,omitempty"`
	Explain   []Explanation `json:"explain,omitempty"`
	Map       *AddressMap   `json:"map,omitempty"`
}

// Preview answers in. Every mistake in it is reported in Errors, each naming
// its field; the figures are filled only when the input is valid, but for
// its name and zone (Valid: the pool and the request are).
func Preview(in PreviewInput) PreviewOutput { return preview(in, Set{}) }

// preview answers in with more taken addresses, parsed beforehand. The
// pool's name and zone are no part of its figures: a mistake of theirs is
// said with the figures of a valid pool, in the order of the new-pool
// form's fields.
func preview(in PreviewInput, more Set) PreviewOutput {
	out := previewPool(in, more)
	var named, zoned Errors
	if in.Name != nil {
		if e := CheckName("name", *in.Name); e != nil {
			named = Errors{e}
		}
	}
	if in.Zone != nil {
		if e := CheckZone("zone", *in.Zone); e != nil {
			zoned = Errors{e}
		}
	}
	if len(named)+len(zoned) > 0 {
		out.Errors = slices.Concat(named, out.Errors, zoned)
	}
	return out
}

// previewPool answers in but for its name and zone.
func previewPool(in PreviewInput, more Set) PreviewOutput {
	var out PreviewOutput
	pool, err := ParsePool(in.Pool)
	if err != nil {
		out.Errors = append(out.Errors, err.(Errors)...)
	}
	var req Request
	if err == nil {
		if req, err = pool.ParseRequest(in.Request); err != nil {
			out.Errors = append(out.Errors, err.(Errors)...)
		}
	}
	taken, err := ParseRanges("taken", in.Taken)
	if err != nil {
		out.Errors = append(out.Errors, err.(Errors)...)
	}
	if in.TakenRanges != "" {
		listed, err := ParseRangeList("takenRanges", in.TakenRanges)
		if err != nil {
			out.Errors = append(out.Errors, err.(Errors)...)
		}
		taken = union(taken, listed)
	}
	taken = union(taken, more)
	var explain []netip.Addr
	for i, s := range in.Explain {
		a, err := netip.ParseAddr(s)
		if err != nil {
			example := "an IPv4 address such as 10.0.0.1"
			if strings.Contains(s, ":") {
				example = "an IPv6 address such as 2001:db8::1"
			}
			out.Errors = append(out.Errors, &FieldError{
				Field:   fmt.Sprintf("explain[%d]", i),
				Message: fmt.Sprintf("explain[%d] %s is not %s", i, quote(s), example),
			})
			continue
		}
		explain = append(explain, a)
	}
	n := in.Next
	switch {
	case n < 0 || n > MaxPreviewNext:
		out.Errors = append(out.Errors, &FieldError{
			Field:   "next",
			Message: fmt.Sprintf("next %d is out of range; ask for 1 to %d candidates", n, MaxPreviewNext),
		})
	case n == 0:
		n = 1
	}
	if len(out.Errors) > 0 {
		return out
	}
	space := pool.Space(req)
	out.Valid = true
	size, free := space.Count(), space.FreeCount(taken)
	out.Size, out.Free = size.Int(), free.Int()
	out.SizeCount, out.FreeCount = FigureOf(size), FigureOf(free)
	if a, ok := space.First(taken); ok {
		out.First = &a
	}
	if a, ok := space.Last(taken); ok {
		out.Last = &a
	}
	out.Next = space.NextN(taken, n)
	for _, a := range explain {
		out.Explain = append(out.Explain, space.Explain(a, taken))
	}
	if in.Map {
		m := space.Map(taken)
		out.Map = &m
	}
	return out
}

// union returns the addresses in s or in t, without copying either when
// the other is empty: a preview only reads them, and a page's taken set
// comes whole in one of them.
func union(s, t Set) Set {
	switch {
	case t.RangeCount() == 0:
		return s
	case s.RangeCount() == 0:
		return t
	}
	return s.Union(t)
}

// MaxPreviewInput bounds the JSON PreviewJSON accepts: 4 MiB holds the
// taken ranges of the most fragmented /16 several times over.
const MaxPreviewInput = 4 << 20

// PreviewJSON answers a PreviewInput written as JSON with a PreviewOutput
// written as JSON. It is the browser's entry point (see wasm/), so the page
// and the server answer byte for byte alike. Input it cannot read is
// reported as an error of the field "input".
func PreviewJSON(in []byte) []byte { return PreviewJSONWithTaken(in, Set{}) }

// PreviewJSONWithTaken answers like PreviewJSON, with more taken addresses
// parsed beforehand (by ParseRangeList): the browser parses a page's taken
// ranges once and reuses them for every keystroke. It answers exactly as
// PreviewJSON does for the input with those ranges in takenRanges.
func PreviewJSONWithTaken(in []byte, taken Set) []byte {
	var out PreviewOutput
	var pi PreviewInput
	if len(in) > MaxPreviewInput {
		out.Errors = Errors{{Field: "input", Message: fmt.Sprintf("input is %d bytes; at most %d are accepted", len(in), MaxPreviewInput)}}
	} else {
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pi); err != nil {
			out.Errors = Errors{{Field: "input", Message: "input is not a preview request: " + err.Error()}}
		} else {
			out = preview(pi, taken)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Every field of PreviewOutput marshals; this cannot happen.
		panic(err)
	}
	return b
}
