//go:build js && wasm

// Command wasm is the browser's copy of the candidate enumerator. Loaded by
// static/wasm/wasm_exec.js, it defines two global functions:
//
//	ipamPreview(json: string, takenRanges?: string): string
//	ipamPreviewSubnet(json: string): string
//	ipamPredictClaim(claims: string, json: string): string
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
				return string(candidates.PreviewJSON(withList(in, args[1].String())))
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
	select {}
}

// withList puts list into the input's takenRanges, so that its mistakes are
// reported as PreviewJSON reports them.
func withList(in []byte, list string) []byte {
	var pi candidates.PreviewInput
	if json.Unmarshal(in, &pi) != nil {
		return in
	}
	if pi.TakenRanges != "" {
		list = pi.TakenRanges + "," + list
	}
	pi.TakenRanges = list
	b, err := json.Marshal(pi)
	if err != nil {
		return in
	}
	return b
}
