package candidates

import (
	"math"
	"net/netip"
	"slices"
	"testing"
)

func TestSpaceIPv6(t *testing.T) {
	tests := []struct {
		name        string
		pool        PoolSpec
		req         RequestSpec
		taken       []string
		size, free  string
		first, last string
		next4       string
	}{
		{"a /64 skips its subnet-router anycast address", PoolSpec{CIDR: "2001:db8::/64"}, RequestSpec{}, nil,
			"18446744073709551615", "18446744073709551615", "2001:db8::1", "2001:db8::ffff:ffff:ffff:ffff", "2001:db8::1 2001:db8::2 2001:db8::3 2001:db8::4"},
		{"a /64 with a gateway, no broadcast address", PoolSpec{CIDR: "2001:db8::/64", Gateway: "2001:db8::1"}, RequestSpec{}, []string{"2001:db8::2-2001:db8::3", "2001:db8::ffff:ffff:ffff:ffff"},
			"18446744073709551614", "18446744073709551611", "2001:db8::4", "2001:db8::ffff:ffff:ffff:fffe", "2001:db8::4 2001:db8::5 2001:db8::6 2001:db8::7"},
		{"/127 has two candidates (RFC 6164)", PoolSpec{CIDR: "2001:db8::/127"}, RequestSpec{}, nil, "2", "2", "2001:db8::", "2001:db8::1", "2001:db8:: 2001:db8::1"},
		{"/127 with a gateway", PoolSpec{CIDR: "2001:db8::/127", Gateway: "2001:db8::"}, RequestSpec{}, nil, "1", "1", "2001:db8::1", "2001:db8::1", "2001:db8::1"},
		{"/128 has one", PoolSpec{CIDR: "2001:db8::7/128"}, RequestSpec{}, nil, "1", "1", "2001:db8::7", "2001:db8::7", "2001:db8::7"},
		{"/128 taken", PoolSpec{CIDR: "2001:db8::7/128"}, RequestSpec{}, []string{"2001:db8::7"}, "1", "0", "", "", ""},
		{"/126 has three", PoolSpec{CIDR: "2001:db8::/126"}, RequestSpec{}, []string{"2001:db8::2"}, "3", "2", "2001:db8::1", "2001:db8::3", "2001:db8::1 2001:db8::3"},
		{"a subnet of a VPC's /48 skips its own anycast address and gateway", PoolSpec{CIDR: "fd12:3456:789a::/48"},
			RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}}, []string{"fd12:3456:789a::5", "fd12:3456:789a:1::2-fd12:3456:789a:1::6"},
			"18446744073709551614", "18446744073709551609", "fd12:3456:789a:1::7", "fd12:3456:789a:1:ffff:ffff:ffff:ffff", "fd12:3456:789a:1::7 fd12:3456:789a:1::8 fd12:3456:789a:1::9 fd12:3456:789a:1::a"},
		{"a /48", PoolSpec{CIDR: "2001:db8::/48", Exclude: []string{"2001:db8::1-2001:db8::ff"}}, RequestSpec{}, []string{"10.0.0.1"},
			"1208925819614629174705920", "1208925819614629174705920", "2001:db8::100", "2001:db8:0:ffff:ffff:ffff:ffff:ffff", "2001:db8::100 2001:db8::101 2001:db8::102 2001:db8::103"},
		{"a /8, the largest pool", PoolSpec{CIDR: "2000::/8"}, RequestSpec{}, []string{"2000::1-20ff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"},
			"1329227995784915872903807060280344575", "1", "20ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "20ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "20ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"top of the address space", PoolSpec{CIDR: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120"}, RequestSpec{}, []string{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffd-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
			"255", "252", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff01", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffc", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff01 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff02 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff03 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff04"},
		{"top of the address space free", PoolSpec{CIDR: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"}, RequestSpec{}, []string{"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"},
			"2", "1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSpace(t, tt.pool, tt.req)
			taken := mustSet(t, tt.taken...)
			if got := s.Count().String(); got != tt.size {
				t.Errorf("Count() = %s, want %s", got, tt.size)
			}
			if got := s.FreeCount(taken).String(); got != tt.free {
				t.Errorf("FreeCount() = %s, want %s", got, tt.free)
			}
			if want, _ := ParseCount(tt.size); s.Size() != want.Int() {
				t.Errorf("Size() = %d, want %d", s.Size(), want.Int())
			}
			first, ok := s.First(taken)
			if got := fmtAddr(first, ok); got != tt.first {
				t.Errorf("First() = %q, want %q", got, tt.first)
			}
			last, ok := s.Last(taken)
			if got := fmtAddr(last, ok); got != tt.last {
				t.Errorf("Last() = %q, want %q", got, tt.last)
			}
			if got := addrs(s.NextN(taken, 4)); got != tt.next4 {
				t.Errorf("NextN(4) = %q, want %q", got, tt.next4)
			}
		})
	}
}

func TestIterFromIPv6(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "2001:db8::/120", Gateway: "2001:db8::1"}, RequestSpec{})
	taken := mustSet(t, "2001:db8::10-2001:db8::12")
	it := s.IterFrom(taken, netip.MustParseAddr("2001:db8::f"))
	var got []netip.Addr
	for range 3 {
		a, _ := it.Next()
		got = append(got, a)
	}
	if want := "2001:db8::f 2001:db8::13 2001:db8::14"; addrs(got) != want {
		t.Errorf("IterFrom(::f) = %s, want %s", addrs(got), want)
	}
	it = s.IterFrom(taken, netip.MustParseAddr("2001:db8::1:0"))
	if a, ok := it.Next(); ok {
		t.Errorf("IterFrom past the end = %s", a)
	}
	it = s.IterFrom(taken, netip.MustParseAddr("10.0.0.1"))
	if a, ok := it.Next(); !ok || a.String() != "2001:db8::2" {
		t.Errorf("IterFrom an IPv4 address = %s, %v, want the first candidate", a, ok)
	}
}

func TestExplainIPv6(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "fd12:3456:789a::/48", Gateway: "fd12:3456:789a::1", Exclude: []string{"fd12:3456:789a:1::200-fd12:3456:789a:1::210"}},
		RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}})
	taken := mustSet(t, "fd12:3456:789a:1::7")
	tests := []struct {
		addr  string
		state State
		msg   string
	}{
		{"fd12:3456:789a:1::8", Free, "fd12:3456:789a:1::8 is free"},
		{"fd12:3456:789a:1::7", Taken, "fd12:3456:789a:1::7 is taken"},
		{"fd12:3456:789a:1::", Anycast, "fd12:3456:789a:1:: is the subnet-router anycast address of fd12:3456:789a:1::/64"},
		{"fd12:3456:789a:1:ffff:ffff:ffff:ffff", Free, "fd12:3456:789a:1:ffff:ffff:ffff:ffff is free"},
		{"fd12:3456:789a:1::1", Reserved, "fd12:3456:789a:1::1 is reserved"},
		{"fd12:3456:789a:1::205", Excluded, "fd12:3456:789a:1::205 is excluded by exclude fd12:3456:789a:1::200-fd12:3456:789a:1::210"},
		{"fd12:3456:789a::1", Outside, "fd12:3456:789a::1 is outside fd12:3456:789a:1::/64"},
		{"fd12:3456:789b::1", OutsidePool, "fd12:3456:789b::1 is not in the pool's fd12:3456:789a::/48"},
		{"10.0.0.1", OutsidePool, "10.0.0.1 is not in the pool's fd12:3456:789a::/48"},
	}
	for _, tt := range tests {
		got := s.Explain(netip.MustParseAddr(tt.addr), taken)
		if got.State != tt.state || got.Message != tt.msg {
			t.Errorf("Explain(%s) = %v %q, want %v %q", tt.addr, got.State, got.Message, tt.state, tt.msg)
		}
	}
	pool := mustSpace(t, PoolSpec{CIDR: "fd12:3456:789a::/48", Gateway: "fd12:3456:789a::1"}, RequestSpec{})
	for addr, want := range map[string]string{
		"fd12:3456:789a::":  "fd12:3456:789a:: is the subnet-router anycast address of fd12:3456:789a::/48",
		"fd12:3456:789a::1": "fd12:3456:789a::1 is the pool's gateway",
	} {
		if got := pool.Explain(netip.MustParseAddr(addr), Set{}).Message; got != want {
			t.Errorf("Explain(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestMapIPv6(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "2001:db8::/124", Gateway: "2001:db8::1", Exclude: []string{"2001:db8::2-2001:db8::3"}}, RequestSpec{})
	m := s.Map(mustSet(t, "2001:db8::4", "2001:db8::9"))
	if want := "agxxt....t......"; m.Cells != want || m.Blocks != nil {
		t.Errorf("Map().Cells = %q (blocks %v), want %q", m.Cells, m.Blocks, want)
	}
	if m := mustSpace(t, PoolSpec{CIDR: "2001:db8::/120"}, RequestSpec{}).Map(Set{}); len(m.Cells) != 256 || m.Cells[0] != 'a' || m.Cells[255] != '.' {
		t.Errorf("Map of a /120: %q", m.Cells)
	}
	if m := mustSpace(t, PoolSpec{CIDR: "2001:db8::/64"}, RequestSpec{}).Map(Set{}); m.Cells != "" || m.Blocks != nil || m.Scope.String() != "2001:db8::/64" {
		t.Errorf("Map of a /64 = %+v, want its scope alone", m)
	}
}

func TestListingIPv6(t *testing.T) {
	space := mustSpace(t, PoolSpec{CIDR: "fd12:3456:789a::/48"}, RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}})
	taken := mustSet(t, "fd12:3456:789a:1::2-fd12:3456:789a:1::4", "fd12:3456:789a:1::9", "fd12:3456:789a:1:ffff:ffff:ffff:ffff")
	first, last := Bounds(space.Scope())
	l := NewListing(space.Set(), taken, Range{first, last})
	rows, count := l.Page(0, 10)
	want := []string{"fd12:3456:789a:1::2", "fd12:3456:789a:1::3", "fd12:3456:789a:1::4", "fd12:3456:789a:1::5-fd12:3456:789a:1::8 free",
		"fd12:3456:789a:1::9", "fd12:3456:789a:1::a-fd12:3456:789a:1:ffff:ffff:ffff:fffe free", "fd12:3456:789a:1:ffff:ffff:ffff:ffff"}
	if !slices.Equal(rowsText(rows), want) {
		t.Errorf("Page(0, 10) = %v, want %v", rowsText(rows), want)
	}
	if got := count.FreeCount.String(); got != "18446744073709551609" || count.Rows != 7 || count.Taken != 5 {
		t.Errorf("the listing holds %+v, want 7 rows, 5 taken and 18446744073709551609 free", count)
	}
	if got := rows[5].Size().String(); got != "18446744073709551605" || rows[5].Count() != math.MaxInt {
		t.Errorf("the free run counts %s (%d)", got, rows[5].Count())
	}
	if rows, _ := l.Page(4, 2); !slices.Equal(rowsText(rows), want[4:6]) {
		t.Errorf("Page(4, 2) = %v", rowsText(rows))
	}
	if got, want := space.Set().Count(), space.Count(); got != want {
		t.Errorf("the set of the candidates counts %s, Count() = %s", got, want)
	}
}

func TestIterationAllocatesNothingIPv6(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "2001:db8::/112", Gateway: "2001:db8::1", Exclude: []string{"2001:db8::500-2001:db8::5ff"}}, RequestSpec{})
	var b SetBuilder
	for i := range 30000 {
		b.Add(addr6(ip6{0x20010db800000000, uint64(2 * i)}))
	}
	taken := b.Set()
	it := s.Iter(taken)
	var n int
	allocs := testing.AllocsPerRun(5, func() {
		for _, ok := it.Next(); ok; _, ok = it.Next() {
			n++
		}
	})
	if allocs != 0 {
		t.Errorf("iterating %d candidates allocated %.0f times, want 0", n, allocs)
	}
	if want := s.Free(taken); n != want {
		t.Errorf("iterated %d candidates, Free() = %d", n, want)
	}
	if allocs := testing.AllocsPerRun(5, func() { n = s.Free(taken) }); allocs != 0 {
		t.Errorf("Free() allocated %.0f times, want 0", allocs)
	}
}

func TestDefaultGatewayIPv6(t *testing.T) {
	for p, want := range map[string]string{
		"2001:db8::/64":       "2001:db8::1",
		"fd12:3456:789a::/48": "fd12:3456:789a::1",
		"2001:db8::/126":      "2001:db8::1",
		"2001:db8::/127":      "2001:db8::",
		"2001:db8::7/128":     "2001:db8::7",
	} {
		if got := DefaultGateway(netip.MustParsePrefix(p)); got.String() != want {
			t.Errorf("DefaultGateway(%s) = %s, want %s", p, got, want)
		}
	}
}
