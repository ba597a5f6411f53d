package e2e

import (
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// overflowingAddresses lists the addresses and prefixes of the page (its
// monospace texts) that are cut off: wider than their own box, or past the
// right edge of the box that holds them; a table that scrolls sideways
// holds its cells whole.
const overflowingAddresses = `() => [...document.querySelectorAll(".mono")].filter((el) => {
	const box = el.getBoundingClientRect();
	if (box.width === 0 || el.closest("[hidden]")) {
		return false;
	}
	if (getComputedStyle(el).display !== "inline" && el.scrollWidth > el.clientWidth + 1) {
		return true;
	}
	const range = document.createRange();
	range.selectNodeContents(el);
	const text = range.getBoundingClientRect();
	const holder = el.parentElement.getBoundingClientRect();
	const scroller = el.closest(".table-scroll, table.list");
	const right = scroller ? scroller.getBoundingClientRect().left + scroller.scrollWidth : Math.min(holder.right, document.documentElement.clientWidth);
	return text.right > Math.max(box.right, right) + 1 || text.right > right + 1;
}).map((el) => el.textContent.trim())`

// checkAddressesFit fails the test for each address or prefix of the page
// that is cut off (overflowingAddresses).
func checkAddressesFit(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	out, err := page.Evaluate(overflowingAddresses)
	if err != nil {
		t.Fatalf("the addresses of %s: %v", name, err)
	}
	var cut []string
	for _, a := range out.([]any) {
		cut = append(cut, a.(string))
	}
	if len(cut) > 0 {
		t.Errorf("%s (%s): addresses cut off: %s", name, page.URL(), strings.Join(cut, ", "))
	}
}
