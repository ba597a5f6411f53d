package views

import (
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

// predictedErrors says why a prediction gets nothing.
func predictedErrors(pr candidates.ClaimPrediction) string {
	messages := make([]string, 0, len(pr.Errors))
	for _, e := range pr.Errors {
		messages = append(messages, e.Message)
	}
	return strings.Join(messages, "; ")
}
