package web

import (
	"strings"

	"golang.org/x/net/html"
)

// An htmlPage is a parsed page, read by data-testid as the e2e tests and
// users' scripts read it.
type htmlPage struct{ root *html.Node }

// parseHTML parses page as a browser does: any input is a document, and
// html.Parse fails only when its reader does, which a string's never does.
func parseHTML(page string) htmlPage {
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		panic(err)
	}
	return htmlPage{root}
}

// elements returns the elements match keeps, in document order.
func (p htmlPage) elements(match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for n := range p.root.Descendants() {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	}
	return out
}

// all returns the elements with data-testid id, in document order.
func (p htmlPage) all(id string) []*html.Node {
	return p.elements(func(n *html.Node) bool { return attrOf(n, "data-testid") == id })
}

// has reports whether the page has an element with data-testid id.
func (p htmlPage) has(id string) bool { return len(p.all(id)) > 0 }

// byID returns the element of the page whose id is id, or nil.
func (p htmlPage) byID(id string) *html.Node {
	found := p.elements(func(n *html.Node) bool { return attrOf(n, "id") == id })
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// linksTo reports whether the page has a link to href, marked as the
// current page or not.
func (p htmlPage) linksTo(href string, current bool) bool {
	return len(p.elements(func(n *html.Node) bool {
		_, marked := nodeAttr(n, "aria-current")
		return n.Data == "a" && attrOf(n, "href") == href && marked == current
	})) > 0
}

// mentions reports whether s is in the page's text or in an attribute.
func (p htmlPage) mentions(s string) bool {
	return strings.Contains(p.words(), s) || len(p.elements(func(n *html.Node) bool {
		for _, a := range n.Attr {
			if strings.Contains(a.Val, s) {
				return true
			}
		}
		return false
	})) > 0
}

// tags returns the elements named tag.
func (p htmlPage) tags(tag string) []*html.Node {
	return p.elements(func(n *html.Node) bool { return n.Data == tag })
}

// in returns the part of the page inside the first element with
// data-testid id (nothing when there is none).
func (p htmlPage) in(id string) htmlPage {
	found := p.all(id)
	if len(found) == 0 {
		return htmlPage{&html.Node{Type: html.DocumentNode}}
	}
	return htmlPage{found[0]}
}

// text returns the text of the first element with data-testid id, spaces
// collapsed, or "" when there is none.
func (p htmlPage) text(id string) string {
	found := p.all(id)
	if len(found) == 0 {
		return ""
	}
	return textOf(found[0])
}

// testIDs returns the data-testid of the elements whose one starts with
// prefix, in document order.
func (p htmlPage) testIDs(prefix string) []string {
	var out []string
	for _, n := range p.elements(func(n *html.Node) bool { return strings.HasPrefix(attrOf(n, "data-testid"), prefix) }) {
		out = append(out, attrOf(n, "data-testid"))
	}
	return out
}

// title returns the text of the page's <title>.
func (p htmlPage) title() string {
	if titles := p.tags("title"); len(titles) > 0 {
		return textOf(titles[0])
	}
	return ""
}

// words returns every text of the page, spaces collapsed.
func (p htmlPage) words() string { return textOf(p.root) }

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// nodeAttr returns the element's attribute key, and whether it has it.
func nodeAttr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// attrOf returns the element's attribute key, or "".
func attrOf(n *html.Node, key string) string {
	v, _ := nodeAttr(n, key)
	return v
}

// options returns the values of a select's options, and the selected one.
func options(sel *html.Node) (values []string, selected string) {
	for n := range sel.Descendants() {
		if n.Type == html.ElementNode && n.Data == "option" {
			values = append(values, attrOf(n, "value"))
			if _, ok := nodeAttr(n, "selected"); ok {
				selected = attrOf(n, "value")
			}
		}
	}
	return values, selected
}
