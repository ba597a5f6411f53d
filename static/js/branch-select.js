// The branch selector reloads the page on the branch chosen as soon as it
// is chosen; without JavaScript, its Switch button does.
"use strict";

for (const select of document.querySelectorAll("form.branch-select select")) {
	select.addEventListener("change", () => select.form.requestSubmit());
}
