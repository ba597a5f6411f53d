// The number pool form's preview: loads the WebAssembly build of the
// number enumerator once, then shows the pool's size and the numbers it
// gives first, in order, on every keystroke without a request, and says
// each mistake of the ranges beside them, in the server's words
// (fields.js). htmx swaps the form when the kind or the rows change; the
// preview follows it.
"use strict";

(() => {
	const root = document.querySelector("[data-number-preview]");
	if (!root) {
		return;
	}
	const out = (id) => root.querySelector(`[data-testid="${id}"]`);
	// shown is how many numbers the order lists.
	const shown = 12;
	// The ranges, marked as the user types into them.
	const check = globalThis.ipamFieldCheck(root, ["ranges"]);

	function update() {
		// The mistakes are said beside the ranges, the server's first
		// preview's too.
		out("preview-error").textContent = "";
		const rows = [...root.querySelectorAll("[data-range-row]")];
		const value = (row, id) => row.querySelector(`[data-testid="${id}"]`).value.trim();
		// Rows left empty are not ranges, as the server reads them.
		const typed = rows.filter((row) => value(row, "range-start") !== "" || value(row, "range-end") !== "");
		if (typed.length === 0) {
			check([]);
			out("preview-size").textContent = "";
			out("preview-order").textContent = "";
			return;
		}
		const ranges = typed.map((row) => ({
			start: Number(value(row, "range-start")),
			end: Number(value(row, "range-end")),
			weight: value(row, "range-weight") === "" ? 1 : Number(value(row, "range-weight")),
		}));
		const answer = JSON.parse(globalThis.ipamNextNumber(JSON.stringify({ ranges, next: shown })));
		check(answer.errors);
		out("preview-size").textContent = answer.errors ? "" : answer.size.toLocaleString("en");
		const next = answer.next || [];
		out("preview-order").textContent = next.join(", ") + (answer.size > next.length ? ", …" : "");
	}

	globalThis.ipamReady(root.dataset.wasm).then(() => {
		root.addEventListener("input", update);
		// htmx:load: a step swapped in a new form.
		document.addEventListener("htmx:load", update);
		update();
		root.dataset.ready = "true";
	}).catch((err) => {
		out("preview-error").textContent = `The preview could not start: ${err}`;
	});
})();
