package views

import "github.com/a-h/templ"

// swap is what a list's search, sort and pager, or a form's step, do with
// htmx: fetch href and put the element #id of the answer in place of the
// page's own, whole (outerHTML); with push, the URL follows, so that the
// list's state can be shared and the back button returns to it. Without
// htmx, the same link or form loads the whole page.
func swap(href, id string, push bool) templ.Attributes {
	a := templ.Attributes{"hx-get": href, "hx-target": "#" + id, "hx-select": "#" + id, "hx-swap": "outerHTML"}
	if push {
		a["hx-push-url"] = "true"
	}
	return a
}
