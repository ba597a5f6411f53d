package views

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

// zoomLinks leads down to ?block= and free cells to ?prefix=, as the pool
// page does.
var zoomLinks = ZoomLinks{
	Down: func(p netip.Prefix) string { return "?block=" + p.String() },
	Free: func(p netip.Prefix) string { return "?prefix=" + p.String() },
}

func TestZooms(t *testing.T) {
	for _, c := range []struct {
		scope string
		unit  int
		want  bool
	}{
		{"fd12:3456:789a::/48", 64, true},
		{"fd12:3456:789a::/56", 64, true},
		{"fd12:3456:789a:1::/64", 64, false},
		{"2001:db8::/64", 128, false},
		{"2001:db8::/48", 128, true},
		{"2001:db8::/56", 56, false},
		{"2001:db8::/120", 128, false},
		{"10.0.0.0/8", 24, false},
	} {
		if got := Zooms(netip.MustParsePrefix(c.scope), c.unit); got != c.want {
			t.Errorf("Zooms(%s, %d) = %v, want %v", c.scope, c.unit, got, c.want)
		}
	}
}

// A VPC's /48 carved into /64 subnets is 256 /56s, each counting the /64s
// of it in use; a subnet as large as a cell holds it and leads to its page.
func TestZoomGridOfAVPC(t *testing.T) {
	held := []ZoomHeld{
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:1::/64"), Holder: "subnet web", Href: "/subnets/web"},
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:2::/64"), Holder: "subnet db", Href: "/subnets/db"},
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:100::/56"), Holder: "subnet big", Href: "/subnets/big"},
		{Prefix: netip.MustParsePrefix("fd12:3456:789b::/64"), Holder: "elsewhere", Href: "/x"},
	}
	g := NewZoomGrid(netip.MustParsePrefix("fd12:3456:789a::/48"), 64, held, zoomLinks)
	if g.Child != 56 || g.Unit != 64 || len(g.Cells) != 256 || g.Columns() != 16 {
		t.Fatalf("grid of /%d cells in /%d units, %d cells, %d columns; want 256 /56s in /64s, 16 columns", g.Child, g.Unit, len(g.Cells), g.Columns())
	}
	for i, want := range []struct {
		prefix, class, title, href string
		used                       uint64
	}{
		{"fd12:3456:789a::/56", "u1", "fd12:3456:789a::/56: 2 of 256 /64s in use", "?block=fd12:3456:789a::/56", 2},
		{"fd12:3456:789a:100::/56", "u5", "fd12:3456:789a:100::/56: subnet big", "/subnets/big", 256},
		{"fd12:3456:789a:200::/56", "u0", "fd12:3456:789a:200::/56: 0 of 256 /64s in use", "?block=fd12:3456:789a:200::/56", 0},
	} {
		c := g.Cells[i]
		if c.Prefix.String() != want.prefix || c.Class() != want.class || g.Title(c) != want.title || c.Href != want.href || c.Used != want.used || c.Size != 256 {
			t.Errorf("cell %d = %s %s %q %s %d of %d; want %s %s %q %s %d of 256", i, c.Prefix, c.Class(), g.Title(c), c.Href, c.Used, c.Size, want.prefix, want.class, want.title, want.href, want.used)
		}
	}
	if last := g.Cells[255]; last.Prefix.String() != "fd12:3456:789a:ff00::/56" {
		t.Errorf("last cell %s, want fd12:3456:789a:ff00::/56", last.Prefix)
	}
}

// One level down, a /56 is 256 /64s: a subnet's cell leads to it, a free
// one to the table of its prefix; small subnets use their whole /64, once.
func TestZoomGridOneLevelDown(t *testing.T) {
	held := []ZoomHeld{
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:1::/64"), Holder: "subnet web", Href: "/subnets/web"},
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:2::/120"), Holder: "subnet tiny", Href: "/subnets/tiny"},
		{Prefix: netip.MustParsePrefix("fd12:3456:789a:2::100/120"), Holder: "subnet tiny2", Href: "/subnets/tiny2"},
		{Prefix: netip.MustParsePrefix("fd12:3456:7800::/40"), Holder: "everything", Href: "/all"},
	}
	g := NewZoomGrid(netip.MustParsePrefix("fd12:3456:789a::/56"), 64, held[:3], zoomLinks)
	if g.Child != 64 || len(g.Cells) != 256 {
		t.Fatalf("grid of /%d cells, %d; want 256 /64s", g.Child, len(g.Cells))
	}
	for i, want := range []struct{ class, title, href string }{
		{"u0", "fd12:3456:789a::/64: free", "?prefix=fd12:3456:789a::/64"},
		{"u5", "fd12:3456:789a:1::/64: subnet web", "/subnets/web"},
		{"u5", "fd12:3456:789a:2::/64: subnet tiny, subnet tiny2", "/subnets/tiny"},
	} {
		c := g.Cells[i]
		if c.Class() != want.class || g.Title(c) != want.title || c.Href != want.href {
			t.Errorf("cell %d = %s %q %s; want %s %q %s", i, c.Class(), g.Title(c), c.Href, want.class, want.title, want.href)
		}
	}
	all := NewZoomGrid(netip.MustParsePrefix("fd12:3456:789a::/56"), 64, held[3:], zoomLinks)
	for _, c := range all.Cells {
		if c.Used != 1 || c.Href != "/all" {
			t.Fatalf("cell %s under a held /40: %d used, %s; want 1, /all", c.Prefix, c.Used, c.Href)
		}
	}
}

// A delegation pool's /32 handing out /56s is 256 /40s of 65,536 /56s.
func TestZoomGridOfADelegationPool(t *testing.T) {
	held := []ZoomHeld{{Prefix: netip.MustParsePrefix("2001:db8:100::/56"), Holder: "VPC team-a/main", Href: "/vpcs/team-a/main"}}
	g := NewZoomGrid(netip.MustParsePrefix("2001:db8::/32"), 56, held, zoomLinks)
	if g.Child != 40 || len(g.Cells) != 256 {
		t.Fatalf("grid of /%d cells, %d; want 256 /40s", g.Child, len(g.Cells))
	}
	c := g.Cells[1]
	if c.Prefix.String() != "2001:db8:100::/40" || g.Title(c) != "2001:db8:100::/40: 1 of 65,536 /56s in use" || c.Class() != "u1" {
		t.Errorf("cell 1 = %s %q %s", c.Prefix, g.Title(c), c.Class())
	}
	// Down to the /56s: 65,536 /56s of a /40 are 256 /48s of 256.
	d := NewZoomGrid(netip.MustParsePrefix("2001:db8:100::/40"), 56, held, zoomLinks)
	if d.Child != 48 || d.Cells[0].Used != 1 || d.Cells[0].Size != 256 {
		t.Errorf("a /40 down: /%d cells, first %d of %d; want /48s, 1 of 256", d.Child, d.Cells[0].Used, d.Cells[0].Size)
	}
	// A /60 handing out /64s is one row of 16.
	s := NewZoomGrid(netip.MustParsePrefix("2001:db8:0:10::/60"), 64, nil, zoomLinks)
	if len(s.Cells) != 16 || s.Columns() != 16 || s.Cells[15].Prefix.String() != "2001:db8:0:1f::/64" {
		t.Errorf("a /60: %d cells, %d columns, last %s", len(s.Cells), s.Columns(), s.Cells[15].Prefix)
	}
	// A /62: four /64s in one row of four.
	if f := NewZoomGrid(netip.MustParsePrefix("2001:db8::/62"), 64, nil, zoomLinks); f.Columns() != 4 {
		t.Errorf("a /62: %d columns, want 4", f.Columns())
	}
}

// A /48 of addresses (a router uplink pool) counts its /64s in use; at the
// widest, a /0 of /64s counts 2^56 per cell without overflow.
func TestZoomGridCountsWithoutOverflow(t *testing.T) {
	g := NewZoomGrid(netip.MustParsePrefix("2001:db8::/48"), 128, []ZoomHeld{{Prefix: netip.MustParsePrefix("2001:db8::7/128")}}, zoomLinks)
	if g.Unit != 64 || g.Cells[0].Used != 1 || g.Cells[0].Size != 256 {
		t.Errorf("a /48 of addresses: unit /%d, first cell %d of %d", g.Unit, g.Cells[0].Used, g.Cells[0].Size)
	}
	d := NewZoomGrid(netip.MustParsePrefix("2001:db8::/56"), 128, []ZoomHeld{{Prefix: netip.MustParsePrefix("2001:db8::7/128"), Href: "?prefix=2001:db8::/64"}}, zoomLinks)
	if c := d.Cells[0]; d.Title(c) != "2001:db8::/64: in use" || c.Href != "?prefix=2001:db8::/64" || c.Class() != "u5" {
		t.Errorf("a /64 of addresses in use: %q %s %s", d.Title(c), c.Href, c.Class())
	}
	w := NewZoomGrid(netip.MustParsePrefix("::/0"), 64, []ZoomHeld{{Prefix: netip.MustParsePrefix("::/0"), Holder: "all"}}, zoomLinks)
	if c := w.Cells[255]; c.Used != 1<<56 || c.Size != 1<<56 || c.Class() != "u5" || c.Prefix.String() != "ff00::/8" {
		t.Errorf("a /0: last cell %s %d of %d %s", c.Prefix, c.Used, c.Size, c.Class())
	}
	w.Cells[0].Holder = ""
	if got := w.Title(w.Cells[0]); got != "::/8: 2^56 (72.1 quadrillion) of 2^56 (72.1 quadrillion) /64s in use" {
		t.Errorf("a /0: first cell %q", got)
	}
	for _, c := range []struct {
		used, size uint64
		want       string
	}{{0, 256, "u0"}, {1, 256, "u1"}, {128, 256, "u3"}, {255, 256, "u5"}, {1<<63 - 1, 1 << 63, "u5"}, {1, 1 << 63, "u1"}} {
		if got := (ZoomCell{Used: c.used, Size: c.size}).Class(); got != c.want {
			t.Errorf("%d of %d: %s, want %s", c.used, c.size, got, c.want)
		}
	}
}

// The zoom map is a grid of links, one tab stop, its rows and columns
// labelled by hex digits, its hint reading one cell.
func TestZoomMapView(t *testing.T) {
	held := []ZoomHeld{{Prefix: netip.MustParsePrefix("fd12:3456:789a:1::/64"), Holder: "subnet web", Href: "/subnets/web"}}
	g := NewZoomGrid(netip.MustParsePrefix("fd12:3456:789a::/48"), 64, held, zoomLinks)
	var b strings.Builder
	if err := ZoomMapView(ZoomMapProps{Grid: g, TestID: "vpc-map"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`aria-label="Map of fd12:3456:789a::/48 by /56"`,
		`<a class="u1" href="?block=fd12:3456:789a::/56" title="fd12:3456:789a::/56: 1 of 256 /64s in use" tabindex="0" data-block="fd12:3456:789a::/56"></a>`,
		`<a class="u0" href="?block=fd12:3456:789a:ff00::/56" title="fd12:3456:789a:ff00::/56: 0 of 256 /64s in use" tabindex="-1" data-block="fd12:3456:789a:ff00::/56"></a>`,
		`<th scope="row">f0</th>`,
		"One cell per /56 of fd12:3456:789a::/48, shaded by the /64s in use: a row and a column add their hex digits (row f0, column +f: fd12:3456:789a:ff00::/56).",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the map lacks %s", want)
		}
	}
	if n := strings.Count(html, "<a "); n != 256 {
		t.Errorf("%d links, want 256", n)
	}
	one := NewZoomGrid(netip.MustParsePrefix("fd12:3456:789a:10::/60"), 64, held, zoomLinks)
	if got := zoomHint(one); got != "One cell per /64 of fd12:3456:789a:10::/60, shaded when it is in use; the column adds to fd12:3456:789a:10::/64." {
		t.Errorf("hint of a /60: %s", got)
	}
}
