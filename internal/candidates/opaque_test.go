package candidates

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
)

const testUID = "6f1c0c1e-8d0b-4c52-9a52-4b1f3c2e7d10"

var testKey = []byte("vpc main key")

// TestOpaqueAddressVectors pins the method (OpaqueAddress's comment): the
// values were computed once, and checked with Python's hmac and hashlib.
// The WebAssembly build runs this test too (make test-wasm): the browser
// computes the same addresses.
func TestOpaqueAddressVectors(t *testing.T) {
	for _, c := range []struct {
		prefix  string
		nic     int
		counter uint32
		want    string
	}{
		{"fd12:3456:789a:1::/64", 0, 0, "fd12:3456:789a:1:1f59:b8c9:babf:ed54"},
		{"fd12:3456:789a:1::/64", 0, 1, "fd12:3456:789a:1:25dc:5ec2:5a41:be21"},
		{"fd12:3456:789a:1::/64", 0, 2, "fd12:3456:789a:1:1d5c:d0a:1498:5948"},
		{"fd12:3456:789a:1::/64", 1, 0, "fd12:3456:789a:1:66da:f0dc:d0ee:92fc"},
		{"2001:db8::/120", 0, 0, "2001:db8::34"},
		{"2001:db8::/48", 0, 0, "2001:db8:0:f996:79b9:3b6e:54cf:dc95"},
	} {
		got := OpaqueAddress(testKey, netip.MustParsePrefix(c.prefix), testUID, c.nic, c.counter)
		if got.String() != c.want {
			t.Errorf("OpaqueAddress(%s, nic %d, counter %d) = %s, want %s", c.prefix, c.nic, c.counter, got, c.want)
		}
	}
}

// TestOpaqueAddressDependsOnEachInput: every input moves the address, and
// the address stays in its prefix.
func TestOpaqueAddressDependsOnEachInput(t *testing.T) {
	p := netip.MustParsePrefix("fd12:3456:789a:1::/64")
	base := OpaqueAddress(testKey, p, testUID, 0, 0)
	for name, a := range map[string]netip.Addr{
		"key":    OpaqueAddress([]byte("another key"), p, testUID, 0, 0),
		"prefix": OpaqueAddress(testKey, netip.MustParsePrefix("fd12:3456:789a:2::/64"), testUID, 0, 0),
		"length": OpaqueAddress(testKey, netip.MustParsePrefix("fd12:3456:789a:1::/65"), testUID, 0, 0),
		"vm":     OpaqueAddress(testKey, p, testUID+"x", 0, 0),
		"nic":    OpaqueAddress(testKey, p, testUID, 2, 0),
	} {
		if !p.Contains(a) && name != "prefix" || a == base || u128(a).lo == u128(base).lo {
			t.Errorf("OpaqueAddress with another %s = %s, beside %s", name, a, base)
		}
	}
	for _, bits := range []int{8, 48, 63, 64, 65, 100, 127, 128} {
		q := netip.PrefixFrom(netip.MustParseAddr("2001:db8::"), bits).Masked()
		for c := range uint32(20) {
			if a := OpaqueAddress(testKey, q, testUID, 0, c); !q.Contains(a) {
				t.Fatalf("OpaqueAddress(%s, counter %d) = %s, outside the prefix", q, c, a)
			}
		}
	}
	if a := OpaqueAddress(testKey, netip.MustParsePrefix("10.0.0.0/24"), testUID, 0, 0); a.IsValid() {
		t.Errorf("OpaqueAddress of an IPv4 prefix = %s", a)
	}
	if a := OpaqueAddress(testKey, netip.MustParsePrefix("2001:db8::/128"), testUID, 0, 0); a.String() != "2001:db8::" {
		t.Errorf("OpaqueAddress of a /128 = %s", a)
	}
}

func TestNextOpaque(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "fd12:3456:789a::/48"}, RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}})
	first, second := "fd12:3456:789a:1:1f59:b8c9:babf:ed54", "fd12:3456:789a:1:25dc:5ec2:5a41:be21"
	if a, ok := s.NextOpaque(Set{}, testKey, testUID, 0); !ok || a.String() != first {
		t.Errorf("NextOpaque = %s, %v; want counter 0's %s", a, ok, first)
	}
	// A conflict moves the interface to its next candidate; the address
	// comes back when it is free again.
	taken := mustSet(t, first)
	if a, ok := s.NextOpaque(taken, testKey, testUID, 0); !ok || a.String() != second {
		t.Errorf("NextOpaque with counter 0's taken = %s, %v; want counter 1's %s", a, ok, second)
	}
	// Other NICs and VMs get their own.
	if a, _ := s.NextOpaque(taken, testKey, testUID, 1); a.String() != "fd12:3456:789a:1:66da:f0dc:d0ee:92fc" {
		t.Errorf("NextOpaque of NIC 1 = %s", a)
	}
	// A small subnet nearly full: the lowest free candidate.
	small := mustSpace(t, PoolSpec{CIDR: "2001:db8::/120"}, RequestSpec{})
	full := mustSet(t, "2001:db8::1-2001:db8::fe")
	if a, ok := small.NextOpaque(full, testKey, testUID, 0); !ok || a.String() != "2001:db8::ff" {
		t.Errorf("NextOpaque of a nearly full /120 = %s, %v; want 2001:db8::ff", a, ok)
	}
	if a, ok := small.NextOpaque(mustSet(t, "2001:db8::1-2001:db8::ff"), testKey, testUID, 0); ok {
		t.Errorf("NextOpaque of a full /120 = %s", a)
	}
	if a, ok := small.NextOpaque(Set{}, testKey, testUID, 0); !ok || a.String() != "2001:db8::34" {
		t.Errorf("NextOpaque of an empty /120 = %s, %v; want 2001:db8::34", a, ok)
	}
	// IPv4: the lowest free candidate.
	v4 := mustSpace(t, seedPool, RequestSpec{})
	if a, ok := v4.NextOpaque(Set{}, testKey, testUID, 0); !ok || a.String() != "203.0.113.4" {
		t.Errorf("NextOpaque of an IPv4 pool = %s, %v", a, ok)
	}
}

func TestOpaqueSkipped(t *testing.T) {
	s := mustSpace(t, PoolSpec{CIDR: "fd12:3456:789a::/48"}, RequestSpec{Within: "fd12:3456:789a:1::/64", Reserved: []string{"fd12:3456:789a:1::1"}})
	first, second := "fd12:3456:789a:1:1f59:b8c9:babf:ed54", "fd12:3456:789a:1:25dc:5ec2:5a41:be21"
	if got := s.OpaqueSkipped(mustSet(t, "fd12:3456:789a:1::2"), testKey, testUID, 0); len(got) != 0 {
		t.Errorf("OpaqueSkipped with the first candidate free = %v, want none", got)
	}
	got := s.OpaqueSkipped(mustSet(t, first, second), testKey, testUID, 0)
	if fmt.Sprint(got) != "["+first+" "+second+"]" {
		t.Errorf("OpaqueSkipped with counters 0 and 1 taken = %v, want both in order", got)
	}
	if next, _ := s.NextOpaque(mustSet(t, first, second), testKey, testUID, 0); slices.Contains(got, next) {
		t.Errorf("OpaqueSkipped holds NextOpaque's answer %s", next)
	}
	v4 := mustSpace(t, seedPool, RequestSpec{})
	if got := v4.OpaqueSkipped(mustSet(t, "203.0.113.4"), testKey, testUID, 0); got != nil {
		t.Errorf("OpaqueSkipped of an IPv4 pool = %v", got)
	}
}

func TestReservedIID(t *testing.T) {
	p := netip.MustParsePrefix("2001:db8::/64")
	for a, want := range map[string]bool{
		"2001:db8::":                     true,
		"2001:db8::1":                    false,
		"2001:db8::fdff:ffff:ffff:ff7f":  false,
		"2001:db8::fdff:ffff:ffff:ff80":  true,
		"2001:db8::fdff:ffff:ffff:ffff":  true,
		"2001:db8::200:5eff:fdff:ffff":   false,
		"2001:db8::200:5eff:fe00:0":      true,
		"2001:db8::200:5eff:fe00:5213":   true,
		"2001:db8::200:5eff:feff:ffff":   true,
		"2001:db8::200:5eff:ff00:0":      false,
		"2001:db8:0:0:ffff:ffff:ffff:ff": false,
	} {
		if got := reservedIID(p, netip.MustParseAddr(a)); got != want {
			t.Errorf("reservedIID(%s) = %v, want %v", a, got, want)
		}
	}
	if reservedIID(netip.MustParsePrefix("2001:db8::/120"), netip.MustParseAddr("2001:db8::")) {
		t.Error("reservedIID holds outside a /64")
	}
}
