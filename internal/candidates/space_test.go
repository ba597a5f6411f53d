package candidates

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func mustPool(t testing.TB, spec PoolSpec) Pool {
	t.Helper()
	p, err := ParsePool(spec)
	if err != nil {
		t.Fatalf("ParsePool(%+v): %v", spec, err)
	}
	return p
}

func mustSpace(t testing.TB, pool PoolSpec, req RequestSpec) Space {
	t.Helper()
	p := mustPool(t, pool)
	r, err := p.ParseRequest(req)
	if err != nil {
		t.Fatalf("ParseRequest(%+v): %v", req, err)
	}
	return p.Space(r)
}

func mustSet(t testing.TB, list ...string) Set {
	t.Helper()
	s, err := ParseRanges("taken", list)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func addrs(list []netip.Addr) string {
	var b strings.Builder
	for i, a := range list {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
	}
	return b.String()
}

var seedPool = PoolSpec{CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2", "203.0.113.3"}}

func TestSpace(t *testing.T) {
	tests := []struct {
		name        string
		pool        PoolSpec
		req         RequestSpec
		taken       []string
		size, free  int
		first, last string
		next4       string
	}{
		{"public-zone-a", seedPool, RequestSpec{}, nil, 251, 251, "203.0.113.4", "203.0.113.254", "203.0.113.4 203.0.113.5 203.0.113.6 203.0.113.7"},
		{"public-zone-a with router and floating IP", seedPool, RequestSpec{}, []string{"203.0.113.4-203.0.113.5"}, 251, 249, "203.0.113.6", "203.0.113.254", "203.0.113.6 203.0.113.7 203.0.113.8 203.0.113.9"},
		{"taken addresses outside the candidates do not count", seedPool, RequestSpec{}, []string{"203.0.113.0-203.0.113.4", "203.0.113.255", "198.51.100.7"}, 251, 250, "203.0.113.5", "203.0.113.254", "203.0.113.5 203.0.113.6 203.0.113.7 203.0.113.8"},
		{"/30 has two hosts", PoolSpec{CIDR: "10.0.0.0/30"}, RequestSpec{}, nil, 2, 2, "10.0.0.1", "10.0.0.2", "10.0.0.1 10.0.0.2"},
		{"/31 has two hosts (RFC 3021)", PoolSpec{CIDR: "10.0.0.0/31"}, RequestSpec{}, nil, 2, 2, "10.0.0.0", "10.0.0.1", "10.0.0.0 10.0.0.1"},
		{"/31 with a gateway", PoolSpec{CIDR: "10.0.0.0/31", Gateway: "10.0.0.0"}, RequestSpec{}, nil, 1, 1, "10.0.0.1", "10.0.0.1", "10.0.0.1"},
		{"/32 has one host", PoolSpec{CIDR: "10.0.0.7/32"}, RequestSpec{}, nil, 1, 1, "10.0.0.7", "10.0.0.7", "10.0.0.7"},
		{"/32 taken", PoolSpec{CIDR: "10.0.0.7/32"}, RequestSpec{}, []string{"10.0.0.7"}, 1, 0, "", "", ""},
		{"subnet skips its own network, broadcast and gateway", PoolSpec{CIDR: "10.42.0.0/16"}, RequestSpec{Within: "10.42.1.0/24", Reserved: []string{"10.42.1.1"}}, []string{"10.42.0.5", "10.42.1.2"}, 253, 252, "10.42.1.3", "10.42.1.254", "10.42.1.3 10.42.1.4 10.42.1.5 10.42.1.6"},
		{"/30 subnet exhausts", PoolSpec{CIDR: "10.42.0.0/16"}, RequestSpec{Within: "10.42.9.0/30", Reserved: []string{"10.42.9.1"}}, []string{"10.42.9.2"}, 1, 0, "", "", ""},
		{"subnet at the pool's start", PoolSpec{CIDR: "10.42.0.0/16", Gateway: "10.42.0.1"}, RequestSpec{Within: "10.42.0.0/28"}, nil, 13, 13, "10.42.0.2", "10.42.0.14", "10.42.0.2 10.42.0.3 10.42.0.4 10.42.0.5"},
		{"excluded ranges", PoolSpec{CIDR: "10.0.0.0/28", Exclude: []string{"10.0.0.1-10.0.0.4", "10.0.0.10-10.0.0.14"}}, RequestSpec{}, []string{"10.0.0.6"}, 5, 4, "10.0.0.5", "10.0.0.9", "10.0.0.5 10.0.0.7 10.0.0.8 10.0.0.9"},
		{"top of the address space", PoolSpec{CIDR: "255.255.255.0/24"}, RequestSpec{}, []string{"255.255.255.253-255.255.255.255"}, 254, 252, "255.255.255.1", "255.255.255.252", "255.255.255.1 255.255.255.2 255.255.255.3 255.255.255.4"},
		{"bottom of the address space", PoolSpec{CIDR: "0.0.0.0/30"}, RequestSpec{}, []string{"0.0.0.1"}, 2, 1, "0.0.0.2", "0.0.0.2", "0.0.0.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustSpace(t, tt.pool, tt.req)
			taken := mustSet(t, tt.taken...)
			if got := s.Size(); got != tt.size {
				t.Errorf("Size() = %d, want %d", got, tt.size)
			}
			if got := s.Free(taken); got != tt.free {
				t.Errorf("Free() = %d, want %d", got, tt.free)
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

func fmtAddr(a netip.Addr, ok bool) string {
	if !ok {
		return ""
	}
	return a.String()
}

func TestIterFrom(t *testing.T) {
	s := mustSpace(t, seedPool, RequestSpec{})
	taken := mustSet(t, "203.0.113.10-203.0.113.12")
	it := s.IterFrom(taken, netip.MustParseAddr("203.0.113.9"))
	var got []netip.Addr
	for range 3 {
		a, _ := it.Next()
		got = append(got, a)
	}
	if want := "203.0.113.9 203.0.113.13 203.0.113.14"; addrs(got) != want {
		t.Errorf("IterFrom(.9) = %s, want %s", addrs(got), want)
	}
}

func TestExplain(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "10.42.0.0/16", Gateway: "10.42.0.1", Exclude: []string{"10.42.1.200-10.42.1.210"}},
		RequestSpec{Within: "10.42.1.0/24", Reserved: []string{"10.42.1.1"}})
	taken := mustSet(t, "10.42.1.7")
	tests := []struct {
		addr  string
		state State
		msg   string
	}{
		{"10.42.1.8", Free, "10.42.1.8 is free"},
		{"10.42.1.7", Taken, "10.42.1.7 is taken"},
		{"10.42.1.0", Network, "10.42.1.0 is the network address of 10.42.1.0/24"},
		{"10.42.1.255", Broadcast, "10.42.1.255 is the broadcast address of 10.42.1.0/24"},
		{"10.42.1.1", Reserved, "10.42.1.1 is reserved"},
		{"10.42.1.205", Excluded, "10.42.1.205 is excluded by exclude 10.42.1.200-10.42.1.210"},
		{"10.42.0.1", Outside, "10.42.0.1 is outside 10.42.1.0/24"},
		{"10.43.0.1", OutsidePool, "10.43.0.1 is not in the pool's 10.42.0.0/16"},
	}
	for _, tt := range tests {
		got := s.Explain(netip.MustParseAddr(tt.addr), taken)
		if got.State != tt.state || got.Message != tt.msg {
			t.Errorf("Explain(%s) = %v %q, want %v %q", tt.addr, got.State, got.Message, tt.state, tt.msg)
		}
	}
	pool := mustSpace(t, seedPool, RequestSpec{})
	for addr, want := range map[string]string{
		"203.0.113.0":   "203.0.113.0 is the network address of 203.0.113.0/24",
		"203.0.113.255": "203.0.113.255 is the broadcast address of 203.0.113.0/24",
		"203.0.113.1":   "203.0.113.1 is the pool's gateway",
		"203.0.113.3":   "203.0.113.3 is excluded by exclude 203.0.113.2-203.0.113.3",
	} {
		if got := pool.Explain(netip.MustParseAddr(addr), Set{}).Message; got != want {
			t.Errorf("Explain(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestMapCells(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "10.0.0.0/28", Gateway: "10.0.0.1", Exclude: []string{"10.0.0.2-10.0.0.3"}}, RequestSpec{})
	m := s.Map(mustSet(t, "10.0.0.4", "10.0.0.9"))
	if want := "ngxxt....t.....b"; m.Cells != want {
		t.Errorf("Map().Cells = %q, want %q", m.Cells, want)
	}
	if m.Blocks != nil {
		t.Errorf("Map().Blocks = %v, want none for a /28", m.Blocks)
	}
}

func TestMapBlocks(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "10.1.0.0/22", Gateway: "10.1.0.1"}, RequestSpec{})
	m := s.Map(mustSet(t, "10.1.1.0-10.1.1.255"))
	var got []string
	for _, b := range m.Blocks {
		got = append(got, fmt.Sprintf("%s:%d/%d/%d", b.Prefix, b.Size, b.Free, b.Blocked))
	}
	want := "10.1.0.0/24:254/254/2 10.1.1.0/24:256/0/0 10.1.2.0/24:256/256/0 10.1.3.0/24:255/255/1"
	if strings.Join(got, " ") != want {
		t.Errorf("Map().Blocks = %v, want %v", got, want)
	}
	big := mustSpace(t, PoolSpec{CIDR: "10.0.0.0/8"}, RequestSpec{}).Map(Set{})
	if len(big.Blocks) != 256 || big.Blocks[1].Prefix.String() != "10.1.0.0/16" {
		t.Errorf("Map of a /8: %d blocks starting %v, want 256 /16s", len(big.Blocks), big.Blocks[:2])
	}
}

func TestIterationAllocatesNothing(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "10.0.0.0/16", Gateway: "10.0.0.1", Exclude: []string{"10.0.5.0-10.0.5.255"}}, RequestSpec{})
	taken := fragmented(t, 30000)
	var n int
	allocs := testing.AllocsPerRun(5, func() {
		n = 0
		it := s.Iter(taken)
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
	allocs = testing.AllocsPerRun(5, func() { n = s.Free(taken) })
	if allocs != 0 {
		t.Errorf("Free() allocated %.0f times, want 0", allocs)
	}
}

// fragmented returns n taken addresses of 10.0.0.0/16 spread so that almost
// none touch: the worst case for a set kept as ranges.
func fragmented(t testing.TB, n int) Set {
	t.Helper()
	var b SetBuilder
	for i := range n {
		// Every other address, then fill the gaps from the top.
		v := ip4(0x0a000000) + ip4(2*i)
		if 2*i >= 1<<16 {
			v = 0x0a00ffff - ip4(2*(i-(1<<15)))
		}
		b.Add(addr(v))
	}
	return b.Set()
}
