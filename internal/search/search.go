// Package search holds the words of the global search that both halves
// use (ipam.Service.Search reads the IP half, numbers.Service is the
// Finder of number pools, numbers and objects of kinds): the kinds of hit,
// what a hit matched, the references a hit names objects and number pools
// by, and the Finder, so that neither half imports the other.
package search

import (
	"context"
	"time"

	"pivirt.hu/ipam/internal/auth"
)

// A HitKind is what a search hit is.
type HitKind string

// The kinds of hit, in the order a result lists them.
const (
	HitAddress    HitKind = "address" // an address nobody holds (or nobody the actor may see), with why it is free or not
	HitPool       HitKind = "pool"
	HitVPC        HitKind = "vpc"
	HitSubnet     HitKind = "subnet"
	HitAllocation HitKind = "allocation"
	HitNumberPool HitKind = "number pool" // a number pool, by its name or id
	HitNumber     HitKind = "number"      // a number of a number pool, in a division, with its holder
	HitObject     HitKind = "object"      // an object of a kind, by its label, a value or its id
)

// What a hit matched, in the words the console shows.
const (
	MatchAddress        = "address"
	MatchPrefix         = "prefix"
	MatchHostname       = "hostname"
	MatchFloatingIPName = "floating IP name"
	MatchOwnerName      = "owner name"
	MatchUID            = "uid"
	MatchName           = "name"
	MatchNamespace      = "namespace"
	MatchLabel          = "display label"
	MatchNumber         = "number"
	MatchID             = "id"
)

// An ObjectRef is an object of a kind, as a hit names it.
type ObjectRef struct {
	ID   string
	Kind string // its node kind's full name: IpamVLAN
	// Label is its display label.
	Label string
	// Branch is the branch that shows it so: main, or the branch searched
	// besides main (ipam.SearchOptions.Branch) when that branch's version of it
	// is not main's live one.
	Branch string
}

// A NumberPoolRef is a number pool, as a hit names it.
type NumberPoolRef struct {
	ID, Name, Description string
	// Kind and Attribute are the kind and the Number attribute it hands
	// out: IpamVLAN, vlan_id.
	Kind, Attribute string
}

// A NumberDivision is the division of a pool a number is held in: the
// values of the pool's scope elements.
type NumberDivision struct {
	// Label is its display label: its values' labels joined by " / " (a
	// site's: site-a); "" for a pool without a scope.
	Label string
	// Key is its values as a JSON list, in the scope's order: the pool
	// page's ?division=.
	Key string
	// Objects are the objects among its values (the site), in order.
	Objects []ObjectRef
}

// A Finder finds what a text names beyond the IP half: number pools,
// their numbers and the objects of kinds (internal/numbers's Service).
// It returns q.Limit hits at most and whether more matched; a tenant finds
// nothing. ipam.Service.Search calls it on a goroutine of its own, beside
// its own statements.
type Finder interface {
	Find(ctx context.Context, actor auth.Actor, q Query) ([]Hit, bool, error)
}

// A Query is what ipam.Service.Search asks a Finder.
type Query struct {
	Text string
	// Branch is the branch whose objects are found besides main's; "" or
	// main for main's alone.
	Branch string
	Limit  int
}

// A Hit is what a Finder found: a number pool (NumberPool, Since, By), a
// number (Number, its NumberPool, its Division and its holder, Object) or
// an object of a kind (Object, and Value, what matched); ipam.SearchHit
// holds it as a hit of the search.
type Hit struct {
	Kind HitKind
	// Match is what matched the query (MatchName, MatchID, MatchNumber,
	// MatchLabel, or the attribute's name).
	Match      string
	Since      time.Time
	By         string
	Object     ObjectRef
	NumberPool NumberPoolRef
	Number     int64
	Division   NumberDivision
	Value      string
}
