package views

import (
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
)

// ClaimPredictions are the predictions of the VPC page's claim forms.
type ClaimPredictions struct {
	Attach, FloatingIP, Subnet candidates.ClaimPrediction
}

// predicted is what a prediction gets: an address or a prefix, or "".
func predicted(pr candidates.ClaimPrediction) string {
	switch {
	case pr.Address != nil:
		return pr.Address.String()
	case pr.CIDR != nil:
		return pr.CIDR.String()
	}
	return ""
}

// predictedDetail is what goes with a prediction: a subnet's gateway.
func predictedDetail(pr candidates.ClaimPrediction) string {
	if pr.Gateway != nil {
		return "with gateway " + pr.Gateway.String()
	}
	return ""
}

// predicted6 is the IPv6 side of a prediction: an interface's address, or
// a subnet's prefix; "" when it has none.
func predicted6(pr candidates.ClaimPrediction) string {
	switch {
	case pr.IPv6Address != nil:
		return pr.IPv6Address.String()
	case pr.IPv6CIDR != nil:
		return pr.IPv6CIDR.String()
	}
	return ""
}

// predicted6Detail is what goes with the IPv6 side of a prediction: a
// subnet's IPv6 gateway.
func predicted6Detail(pr candidates.ClaimPrediction) string {
	if pr.IPv6Gateway != nil {
		return "with gateway " + pr.IPv6Gateway.String()
	}
	return ""
}

// predictedErrors says why a prediction gets nothing.
func predictedErrors(pr candidates.ClaimPrediction) string {
	return messages(pr.Errors, "; ")
}

// messages are the messages of errs in plain words, as the page's scripts
// say them (candidates.Plain), joined by sep.
func messages(errs candidates.Errors, sep string) string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.PlainOf())
	}
	return strings.Join(out, sep)
}

// previewErrors says why a pool's preview has no figures; "" without one.
func previewErrors(o *candidates.PreviewOutput) string {
	if o == nil {
		return ""
	}
	return messages(o.Errors, "\n")
}

// previewCount is the number of usable addresses a pool's preview counts.
func previewCount(o *candidates.PreviewOutput) string {
	if o == nil || !o.Valid || o.SizeCount == nil {
		return ""
	}
	return CountText(o.SizeCount.Count)
}

// previewFirst is the lowest free address of a pool's preview.
func previewFirst(o *candidates.PreviewOutput) string {
	if o == nil || o.First == nil {
		return ""
	}
	return o.First.String()
}

// previewLast is the highest free address of a pool's preview.
func previewLast(o *candidates.PreviewOutput) string {
	if o == nil || o.Last == nil {
		return ""
	}
	return o.Last.String()
}

// numberPreviewErrors says why a number pool's preview has no figures.
func numberPreviewErrors(o *candidates.NumberPreviewOutput) string {
	if o == nil {
		return ""
	}
	return messages(o.Errors, "\n")
}

// numberPreviewSize is how many numbers a number pool's preview counts.
func numberPreviewSize(o *candidates.NumberPreviewOutput) string {
	if o == nil || len(o.Errors) > 0 {
		return ""
	}
	return Figure(o.Size)
}

// numberPreviewOrder lists the numbers a number pool's preview gives
// first, in order, and "…" when it gives more.
func numberPreviewOrder(o *candidates.NumberPreviewOutput) string {
	if o == nil {
		return ""
	}
	out := make([]string, 0, len(o.Next)+1)
	for _, n := range o.Next {
		out = append(out, strconv.FormatInt(n, 10))
	}
	if o.Size > int64(len(o.Next)) {
		out = append(out, "…")
	}
	return strings.Join(out, ", ")
}
