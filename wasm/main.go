//go:build js && wasm

// Command wasm is the browser's copy of the candidate enumerator. Loaded by
// static/wasm/wasm_exec.js, it defines these global functions:
//
//	ipamPreview(json: string, takenRanges?: string): string
//	ipamPreviewSubnet(json: string): string
//	ipamPredictClaim(claims: string, json: string): string
//	ipamNextNumber(json: string, takenRanges?: string): string
//
// ipamPreview takes a candidates.PreviewInput as JSON and returns a
// candidates.PreviewOutput as JSON, exactly as the server computes it. The
// optional takenRanges is the compact taken list of the input
// ("a-b,c,…"), passed apart so that it is parsed once: a page calls
// ipamPreview on every keystroke with the same list.
//
// ipamPreviewSubnet takes a candidates.SubnetPreviewInput as JSON (a VPC's
// cidr, its subnets, a prefix length and a count) and returns a
// candidates.SubnetPreviewOutput as JSON: the prefixes the next subnets of
// that length would get, or why there is none.
//
// ipamPredictClaim takes a candidates.ClaimsSpec as JSON (what a VPC's page
// carries: its subnets, its zones' public pools, their taken ranges) and a
// candidates.ClaimRequest as JSON (an interface in a subnet, a floating IP
// in a zone, a new subnet), and returns a candidates.ClaimPrediction as
// JSON: the address or prefix the claim will get, or why it gets none, in
// the server's words. The claims are parsed once and reused while the page
// passes the same string.
//
// ipamNextNumber takes a candidates.NumberPreviewInput as JSON (a number
// pool's ranges, the numbers taken in one division, how many to show) and
// returns a candidates.NumberPreviewOutput as JSON: the number the next
// claim in that division gets, the next ones in order, or, when none is
// free, the server's message; and the figures. Like ipamPreview, it takes
// the compact taken list ("1-4000,4010") apart too, parsed once.
package main

import (
	"encoding/json"
	"syscall/js"

	"pivirt.hu/ipam/internal/candidates"
)

// The last takenRanges parsed, and its set. JavaScript passes equal strings
// as the same value, so Equal compares them without copying.
var (
	lastList js.Value
	lastSet  candidates.Set
	parsed   bool
)

// The last taken list of ipamNextNumber parsed, and its set.
var (
	lastNumberList js.Value
	lastNumberSet  candidates.NumberSet
	numbersParsed  bool
)

// The last claims parsed: their parsed form, or the answer to every
// request about them when they are not valid.
var (
	lastClaims   js.Value
	claims       *candidates.Claims
	claimsErrors []byte
	claimsParsed bool
)

func main() {
	js.Global().Set("ipamPreview", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return string(candidates.PreviewJSON(nil))
		}
		in := []byte(args[0].String())
		if len(args) < 2 || args[1].Type() != js.TypeString {
			return string(candidates.PreviewJSON(in))
		}
		if !parsed || !args[1].Equal(lastList) {
			set, err := candidates.ParseRangeList("takenRanges", args[1].String())
			if err != nil {
				return string(candidates.PreviewJSON(withList(in, args[1].String(), func(pi *candidates.PreviewInput) *string { return &pi.TakenRanges })))
			}
			lastList, lastSet, parsed = args[1], set, true
		}
		return string(candidates.PreviewJSONWithTaken(in, lastSet))
	}))
	js.Global().Set("ipamPreviewSubnet", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return string(candidates.SubnetPreviewJSON(nil))
		}
		return string(candidates.SubnetPreviewJSON([]byte(args[0].String())))
	}))
	js.Global().Set("ipamPredictClaim", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
			return string(candidates.PredictClaimJSON(nil, nil))
		}
		if !claimsParsed || !args[0].Equal(lastClaims) {
			in := []byte(args[0].String())
			lastClaims, claims, claimsErrors, claimsParsed = args[0], nil, nil, true
			if c, err := candidates.ParseClaimsJSON(in); err == nil {
				claims = c
			} else {
				claimsErrors = candidates.PredictClaimJSON(in, nil)
			}
		}
		if claims == nil {
			return string(claimsErrors)
		}
		return string(claims.PredictJSON([]byte(args[1].String())))
	}))
	js.Global().Set("ipamNextNumber", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return string(candidates.NumberPreviewJSON(nil))
		}
		in := []byte(args[0].String())
		if len(args) < 2 || args[1].Type() != js.TypeString {
			return string(candidates.NumberPreviewJSON(in))
		}
		if !numbersParsed || !args[1].Equal(lastNumberList) {
			set, err := candidates.ParseNumberList("takenRanges", args[1].String())
			if err != nil {
				return string(candidates.NumberPreviewJSON(withList(in, args[1].String(), func(ni *candidates.NumberPreviewInput) *string { return &ni.TakenRanges })))
			}
			lastNumberList, lastNumberSet, numbersParsed = args[1], set, true
		}
		return string(candidates.NumberPreviewJSONWithTaken(in, lastNumberSet))
	}))
	select {}
}

// withList puts list into the takenRanges of the input, an In written as
// JSON, so that its mistakes are reported as the input's own.
func withList[In any](in []byte, list string, takenRanges func(*In) *string) []byte {
	var v In
	if json.Unmarshal(in, &v) != nil {
		return in
	}
	if tr := takenRanges(&v); *tr != "" {
		list = *tr + "," + list
	}
	*takenRanges(&v) = list
	b, err := json.Marshal(v)
	if err != nil {
		return in
	}
	return b
}
