package candidates

import "fmt"

// NumberPreviewInput asks which numbers a number pool's division hands out
// next, before anything is committed.
type NumberPreviewInput struct {
	Ranges []NumberRange `json:"ranges"`
	// Taken lists the numbers already held in the division.
	Taken []int64 `json:"taken,omitempty"`
	// TakenRanges is the same as one string of numbers and a-b runs
	// separated by commas ("1-4000,4010"): the compact form a page
	// carries (see NumberSet.String), read much faster than a list (in
	// the browser, 4 000 numbers cost 8 ms a call as a list).
	TakenRanges string `json:"takenRanges,omitempty"`
	// Next asks for that many free numbers, in the order they are handed
	// out (0 means 1).
	Next int `json:"next,omitempty"`
	// Pool and Division name the pool and the division's display label
	// in the message of a division with no free number.
	Pool     string `json:"pool,omitempty"`
	Division string `json:"division,omitempty"`
}

// NumberPreviewOutput answers a NumberPreviewInput.
type NumberPreviewOutput struct {
	Valid  bool   `json:"valid"`
	Errors Errors `json:"errors,omitempty"`
	Size   int64  `json:"size"`
	Used   int64  `json:"used"`
	Free   int64  `json:"free"`
	// First is the number the next claim gets; Next the first n in order.
	First *int64  `json:"first,omitempty"`
	Next  []int64 `json:"next,omitempty"`
	// NoFree says, in the server's words (NoFreeNumber), that the division
	// has no free number.
	NoFree string `json:"noFree,omitempty"`
	// Ranges gives each range's figures, in the order given.
	Ranges []NumberRangeUsage `json:"ranges,omitempty"`
}

// NumberRangeUsage is a range of a pool with its figures in one division.
type NumberRangeUsage struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
	Size   int64 `json:"size"`
	Used   int64 `json:"used"`
}

// NumberPreview answers in. Every mistake in it is reported in Errors, each
// naming its field; the figures are filled only when the input is valid.
func NumberPreview(in NumberPreviewInput) NumberPreviewOutput {
	return numberPreview(in, NumberSet{})
}

// numberPreview answers in with more taken numbers, parsed beforehand.
func numberPreview(in NumberPreviewInput, more NumberSet) NumberPreviewOutput {
	var out NumberPreviewOutput
	pool, err := ParseNumberPool(in.Ranges)
	if err != nil {
		out.Errors = append(out.Errors, err.(Errors)...)
	}
	taken := NumberSetOf(in.Taken...)
	if in.TakenRanges != "" {
		listed, err := ParseNumberList("takenRanges", in.TakenRanges)
		if err != nil {
			out.Errors = append(out.Errors, err.(Errors)...)
		}
		taken = taken.union(listed)
	}
	if more.RangeCount() > 0 {
		taken = taken.union(more)
	}
	n := in.Next
	switch {
	case n < 0 || n > MaxPreviewNext:
		out.Errors = append(out.Errors, &FieldError{
			Field:   "next",
			Message: fmt.Sprintf("next %d is out of range; ask for 1 to %d numbers", n, MaxPreviewNext),
		})
	case n == 0:
		n = 1
	}
	if len(out.Errors) > 0 {
		return out
	}
	out.Valid = true
	out.Size = pool.Size()
	out.Free = pool.Free(taken)
	out.Used = out.Size - out.Free
	out.Next = pool.NextN(taken, n)
	if len(out.Next) > 0 {
		out.First = &out.Next[0]
	} else {
		out.NoFree = NoFreeNumber(in.Pool, in.Division)
	}
	for i, used := range pool.Used(taken) {
		r := pool.ranges[i]
		out.Ranges = append(out.Ranges, NumberRangeUsage{Start: r.Start, End: r.End, Weight: r.Weight, Size: r.End - r.Start + 1, Used: used})
	}
	return out
}

// NumberPreviewJSON answers a NumberPreviewInput written as JSON with a
// NumberPreviewOutput written as JSON: the browser's entry point (see
// wasm/), like PreviewJSON. Input it cannot read is reported as an error of
// the field "input".
func NumberPreviewJSON(in []byte) []byte { return NumberPreviewJSONWithTaken(in, NumberSet{}) }

// NumberPreviewJSONWithTaken answers like NumberPreviewJSON, with more taken
// numbers parsed beforehand (by ParseNumberList): the browser parses a
// page's taken list once and reuses it. It answers exactly as
// NumberPreviewJSON does for the input with that list in takenRanges.
func NumberPreviewJSONWithTaken(in []byte, taken NumberSet) []byte {
	var out NumberPreviewOutput
	var ni NumberPreviewInput
	if len(in) > MaxPreviewInput {
		out.Errors = Errors{{Field: "input", Message: fmt.Sprintf("input is %d bytes; at most %d are accepted", len(in), MaxPreviewInput)}}
	} else if err := decodeStrict(in, &ni); err != nil {
		out.Errors = Errors{{Field: "input", Message: "input is not a number preview request: " + err.Error()}}
	} else {
		out = numberPreview(ni, taken)
	}
	return marshal(out)
}
