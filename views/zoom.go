package views

import (
	"cmp"
	"fmt"
	"math/bits"
	"net/netip"
	"slices"
	"strconv"

	"pivirt.hu/ipam/internal/candidates"
)

// zoomStep is how many bits a zoom grid goes down: a /48 is drawn as 256
// /56s, a /56 as 256 /64s.
const zoomStep = 8

// ZoomLeafMax is the longest prefix a zoom grid draws as a cell: a /64's
// addresses are a list of allocations with the gaps between them (the
// allocation table), never a grid of 2^64 cells.
const ZoomLeafMax = 64

// A ZoomHeld is a prefix handed out of the prefix a zoom grid draws: a
// subnet of a VPC's IPv6 prefix, or a prefix delegated by a pool, with
// what holds it and its page.
type ZoomHeld struct {
	Prefix netip.Prefix
	// Holder names what holds it ("subnet web", "VPC team-a/main").
	Holder string
	Href   string
}

// ZoomLinks are where the cells of a zoom grid lead.
type ZoomLinks struct {
	// Down is the grid of a cell one level down.
	Down func(netip.Prefix) string
	// Free is the page of a free cell that is not drawn further down (the
	// allocation table of that prefix).
	Free func(netip.Prefix) string
}

// A ZoomGrid is a prefix larger than the prefixes it hands out, drawn as
// its children zoomStep bits down, each shaded by the share of it in use.
type ZoomGrid struct {
	// Scope is the prefix drawn; Child the length of its cells; Unit the
	// length of the prefixes it counts in (what it hands out, at most
	// ZoomLeafMax).
	Scope       netip.Prefix
	Child, Unit int
	Cells       []ZoomCell
}

// A ZoomCell is one child of a zoom grid's scope.
type ZoomCell struct {
	Prefix netip.Prefix
	// Used of Size prefixes of the grid's unit are handed out.
	Used, Size uint64
	// Holder is what holds the whole cell, or, at the unit, what holds
	// parts of it; "" when nothing does.
	Holder string
	Href   string
}

// Zooms tells whether an IPv6 prefix that hands out prefixes of length
// unit (addresses: 128) is drawn as a zoom grid: when it is shorter than
// both the unit and ZoomLeafMax.
func Zooms(scope netip.Prefix, unit int) bool {
	return scope.Addr().Is6() && scope.Bits() < min(unit, ZoomLeafMax)
}

// NewZoomGrid draws scope, an IPv6 prefix that Zooms, which hands out
// prefixes of length unit (an address-handing prefix counts in /64s), with
// the prefixes held in it. Its cells are scope's children zoomStep bits
// down, or the unit's when that is nearer; a cell that a held prefix covers
// leads to the holder's page, a cell at the unit that nothing holds to
// links.Free, any other one level down. Held prefixes outside scope are not
// drawn; a held prefix longer than the unit uses its whole unit.
func NewZoomGrid(scope netip.Prefix, unit int, held []ZoomHeld, links ZoomLinks) ZoomGrid {
	scope = scope.Masked()
	unit = min(unit, ZoomLeafMax)
	g := ZoomGrid{Scope: scope, Unit: unit, Child: min(scope.Bits()+zoomStep, unit)}
	n := 1 << (g.Child - scope.Bits())
	perCell := g.Unit - g.Child
	g.Cells = make([]ZoomCell, n)
	for i := range g.Cells {
		p := netip.PrefixFrom(offsetAddr(scope, uint64(i), g.Child), g.Child)
		g.Cells[i] = ZoomCell{Prefix: p, Size: uint64(1) << perCell}
	}
	for _, r := range heldRuns(scope, g.Unit, held) {
		first, last := r.first>>perCell, r.last>>perCell
		for c := first; c <= last && c < uint64(n); c++ {
			lo, hi := c<<perCell, c<<perCell+(g.Cells[c].Size-1)
			g.Cells[c].Used += min(hi, r.last) - max(lo, r.first) + 1
		}
	}
	for _, h := range held {
		p := h.Prefix.Masked()
		if !p.IsValid() || !scope.Overlaps(p) {
			continue
		}
		if p.Bits() > g.Child {
			// Prefixes longer than a cell at the unit share it: the cell
			// names them all and leads to the first.
			if g.Child == g.Unit {
				c := &g.Cells[offsetOf(scope, p.Addr(), g.Child)]
				if c.Holder != "" {
					c.Holder += ", "
				} else {
					c.Href = h.Href
				}
				c.Holder += h.Holder
			}
			continue
		}
		if p.Bits() < scope.Bits() {
			p = scope
		}
		first := offsetOf(scope, p.Addr(), g.Child)
		for c := first; c < first+uint64(1)<<(g.Child-p.Bits()) && c < uint64(n); c++ {
			g.Cells[c].Holder, g.Cells[c].Href = h.Holder, h.Href
		}
	}
	for i := range g.Cells {
		c := &g.Cells[i]
		switch {
		case c.Href != "":
		case g.Child == g.Unit && c.Used == 0:
			c.Href = links.Free(c.Prefix)
		default:
			c.Href = links.Down(c.Prefix)
		}
	}
	return g
}

// A unitRun is a run of units in use, by their offsets in the scope.
type unitRun struct{ first, last uint64 }

// heldRuns is the units of scope that the held prefixes use, merged into
// ascending runs that do not overlap.
func heldRuns(scope netip.Prefix, unit int, held []ZoomHeld) []unitRun {
	var runs []unitRun
	for _, h := range held {
		p := h.Prefix.Masked()
		if !p.IsValid() || !scope.Overlaps(p) {
			continue
		}
		if p.Bits() < scope.Bits() {
			p = scope
		}
		first := offsetOf(scope, p.Addr(), unit)
		count := uint64(1)
		if p.Bits() < unit {
			count = uint64(1) << (unit - p.Bits())
		}
		runs = append(runs, unitRun{first, first + (count - 1)})
	}
	slices.SortFunc(runs, func(a, b unitRun) int { return cmp.Compare(a.first, b.first) })
	merged := runs[:0]
	for _, r := range runs {
		if k := len(merged) - 1; k >= 0 && r.first <= merged[k].last+1 && merged[k].last+1 != 0 {
			merged[k].last = max(merged[k].last, r.last)
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// offsetOf is the index of the /bits prefix holding a among those of scope.
func offsetOf(scope netip.Prefix, a netip.Addr, bits int) uint64 {
	hi, lo := addrHalves(a)
	shift := 128 - bits
	var v uint64
	switch {
	case shift >= 64:
		v = hi >> (shift - 64)
	case shift == 0:
		v = lo
	default:
		v = lo>>shift | hi<<(64-shift)
	}
	width := bits - scope.Bits()
	if width >= 64 {
		return v
	}
	return v & (uint64(1)<<width - 1)
}

// offsetAddr is the first address of the i-th /bits prefix of scope.
func offsetAddr(scope netip.Prefix, i uint64, bits int) netip.Addr {
	hi, lo := addrHalves(scope.Addr())
	shift := 128 - bits
	switch {
	case shift >= 64:
		hi |= i << (shift - 64)
	case shift == 0:
		lo |= i
	default:
		lo |= i << shift
		hi |= i >> (64 - shift)
	}
	var b [16]byte
	for k := range 8 {
		b[k] = byte(hi >> (56 - 8*k))
		b[8+k] = byte(lo >> (56 - 8*k))
	}
	return netip.AddrFrom16(b)
}

// addrHalves is an IPv6 address as a 128-bit number: its high and low 64
// bits.
func addrHalves(a netip.Addr) (hi, lo uint64) {
	b := a.As16()
	for k := range 8 {
		hi = hi<<8 | uint64(b[k])
		lo = lo<<8 | uint64(b[8+k])
	}
	return hi, lo
}

// Columns is the number of cells in a row of the grid: 16, or all of them
// when there are fewer.
func (g ZoomGrid) Columns() int { return min(len(g.Cells), mapColumns) }

// Class shades the cell as far as it is used, in fifths rounded up (as
// the address maps' blocks are): u0 empty, u5 full.
func (c ZoomCell) Class() string {
	hi, lo := bits.Mul64(c.Used, 5)
	lo, carry := bits.Add64(lo, c.Size-1, 0)
	q, _ := bits.Div64(hi+carry, lo, c.Size)
	return "u" + strconv.FormatUint(q, 10)
}

// Title says what the cell is: its prefix, who holds it or how much of it
// is in use.
func (g ZoomGrid) Title(c ZoomCell) string {
	if c.Holder != "" {
		return c.Prefix.String() + ": " + c.Holder
	}
	if g.Child == g.Unit && c.Used > 0 {
		return c.Prefix.String() + ": in use"
	}
	if g.Child == g.Unit {
		return c.Prefix.String() + ": free"
	}
	return fmt.Sprintf("%s: %s of %s /%ds in use", c.Prefix, CountText(candidates.CountOf(c.Used)), CountText(candidates.CountOf(c.Size)), g.Unit)
}
