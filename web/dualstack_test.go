package web

import (
	"net/url"
	"testing"
)

// TestPoolCreateFormIPv6 posts IPv6 prefixes to the new public pool form
// as a browser without JavaScript does: a prefix in another spelling than
// RFC 5952's, or with host bits, is refused beside its field with the
// canonical one, and the form shows the server's preview of what it holds.
func TestPoolCreateFormIPv6(t *testing.T) {
	c := newConsoleWithData(t)
	form := func(name, cidr string) url.Values {
		return url.Values{"name": {name}, "cidr": {cidr}, "gateway": {""}, "exclude": {""}, "zone": {"zone-b"}}
	}
	for _, tt := range []struct {
		form                    url.Values
		cidrError, previewError string
	}{
		{form("v6", "2001:DB8:0::/32"), "CIDR 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?", "CIDR 2001:DB8:0::/32 is not in canonical form; did you mean 2001:db8::/32?"},
		{form("v6", "2001:db8::1/64"), "CIDR 2001:db8::1/64 has host bits set; did you mean 2001:db8::/64?", "CIDR 2001:db8::1/64 has host bits set; did you mean 2001:db8::/64?"},
	} {
		status, _, body := c.post(t, "/pools", tt.form, c.op)
		page := parseHTML(body)
		if status != 422 || page.text("error-cidr") != tt.cidrError || page.text("preview-error") != tt.previewError || page.text("preview-count") != "" {
			t.Errorf("POST /pools %v = %d with %q, preview %q %q; want 422 with %q", tt.form, status, page.text("error-cidr"), page.text("preview-error"), page.text("preview-count"), tt.cidrError)
		}
	}
	// A valid prefix with another mistake: the preview counts its
	// addresses exactly, and readably.
	for cidr, want := range map[string][3]string{
		"2001:db8::/64":  {"2^64 − 1 (18.4 quintillion)", "2001:db8::1", "2001:db8::ffff:ffff:ffff:ffff"},
		"2001:db8::/48":  {"2^80 − 1 (1.21 septillion)", "2001:db8::1", "2001:db8:0:ffff:ffff:ffff:ffff:ffff"},
		"2001:db8::/120": {"255", "2001:db8::1", "2001:db8::ff"},
		"2001:db8::/127": {"2", "2001:db8::", "2001:db8::1"},
	} {
		status, _, body := c.post(t, "/pools", form("B!", cidr), c.op)
		page := parseHTML(body)
		if got := [3]string{page.text("preview-count"), page.text("preview-first"), page.text("preview-last")}; status != 422 || got != want {
			t.Errorf("the preview of %s = %d %q, want 422 %q", cidr, status, got, want)
		}
	}
}
