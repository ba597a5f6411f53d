package candidates

import (
	"fmt"
	"net/netip"
)

// State says whether an address can be handed out and, if not, why.
type State uint8

// The states of an address, from the point of view of one Space.
const (
	Free        State = iota // a candidate nobody holds
	Taken                    // a candidate somebody holds
	Network                  // the network address of the pool or of Within
	Broadcast                // the broadcast address of the pool or of Within
	Gateway                  // the pool's gateway
	Excluded                 // in the pool's excludes
	Reserved                 // reserved by the request
	Outside                  // in the pool but outside the request's Within
	OutsidePool              // not in the pool at all
	Anycast                  // the subnet-router anycast address of an IPv6 pool or of Within
)

var stateNames = [...]string{"free", "taken", "network", "broadcast", "gateway", "excluded", "reserved", "outside", "outside-pool", "anycast"}

// stateCodes are the one-letter forms used in AddressMap.Cells.
const stateCodes = ".tnbgxroOa"

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", s)
}

// Code returns the one-letter form of s used in AddressMap.Cells.
func (s State) Code() byte { return stateCodes[s] }

// MarshalText writes s by name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// An Explanation says why an address is or is not available.
type Explanation struct {
	Address netip.Addr `json:"address"`
	State   State      `json:"state"`
	Message string     `json:"message"`
}

// State returns the state of a.
func (s Space) State(a netip.Addr, taken Set) State {
	st, _ := s.explain(a, taken)
	return st
}

// Explain says why a is or is not available.
func (s Space) Explain(a netip.Addr, taken Set) Explanation {
	st, msg := s.explain(a, taken)
	return Explanation{Address: a, State: st, Message: msg}
}

func (s Space) explain(a netip.Addr, taken Set) (State, string) {
	p := s.pool.Prefix
	switch {
	case !p.Contains(a):
		return OutsidePool, fmt.Sprintf("%s is not in the pool's %s", a, p)
	case !s.scope.Contains(a):
		return Outside, fmt.Sprintf("%s is outside %s", a, s.scope)
	case s.six != nil:
		for _, edge := range []netip.Prefix{p, s.req.Within} {
			if edge.IsValid() && edge.Bits() <= maxAnycastBits && a == edge.Addr() {
				return Anycast, fmt.Sprintf("%s is the subnet-router anycast address of %s", a, edge)
			}
		}
	}
	for _, edge := range []netip.Prefix{p, s.req.Within} {
		if !edge.IsValid() || edge.Bits() > 30 || s.six != nil {
			continue
		}
		lo, hi := prefixBounds(edge)
		switch u32(a) {
		case lo:
			return Network, fmt.Sprintf("%s is the network address of %s", a, edge)
		case hi:
			return Broadcast, fmt.Sprintf("%s is the broadcast address of %s", a, edge)
		}
	}
	if a == s.pool.Gateway {
		return Gateway, fmt.Sprintf("%s is the pool's gateway", a)
	}
	if r, ok := s.pool.Exclude.RangeOf(a); ok {
		return Excluded, fmt.Sprintf("%s is excluded by exclude %s", a, r)
	}
	if s.req.Reserved.Contains(a) {
		return Reserved, fmt.Sprintf("%s is reserved", a)
	}
	if taken.Contains(a) {
		return Taken, fmt.Sprintf("%s is taken", a)
	}
	return Free, fmt.Sprintf("%s is free", a)
}
