// The object form's "From pool" tabs show the number the object will get.
// The server draws the first prediction (web/object_predict.go); this
// script computes it again, without a request, when the pool or a scope
// element (the site) changes, with the same enumerator built as
// WebAssembly (ipamNextNumber), from the pool's ranges and the numbers
// taken in the object's division, which the page carries. The prediction is sent
// along, so that the server's answer can say when it gave another one.
// A prediction that the pool has no free number left in the division,
// which the server would refuse, disables the form's button, and the
// field says why.
"use strict";

(() => {
	const dataElement = document.getElementById("object-pool-data");
	const form = document.querySelector("form[data-testid=form-object]");
	if (!dataElement || !form) {
		return;
	}
	const pools = JSON.parse(dataElement.dataset.pools);

	// The value of a scope element as a division names it: a peer's id, an
	// attribute's value as text.
	const valueOf = (name) => {
		const input = form.elements[name];
		if (!input) {
			return "";
		}
		if (input.type === "checkbox") {
			return input.checked ? "true" : "false";
		}
		return input.value.trim();
	};

	// How a division names a scope element's value: a peer's display
	// label (the option chosen), else the value.
	const labelOf = (name) => {
		const input = form.elements[name];
		if (input && input.selectedOptions && input.selectedOptions.length > 0) {
			return input.selectedOptions[0].textContent.trim();
		}
		return valueOf(name);
	};

	const submit = form.querySelector("button[type=submit]");

	const update = () => {
		let refused = false;
		for (const field of form.querySelectorAll("[data-pool-field]")) {
			const name = field.dataset.poolField;
			const output = field.querySelector("[data-testid=predicted-number]");
			const error = field.querySelector("[data-testid=prediction-error]");
			const pending = field.querySelector("[data-testid=prediction-pending]");
			const predicted = form.elements[`${name}__predicted`];
			const pool = pools.find((p) => p.id === form.elements[`${name}__pool`].value);
			let got = "";
			// wait is what the prediction waits for, why what the server
			// would refuse.
			let wait = "";
			let why = "";
			const values = pool ? pool.scope.map(valueOf) : [];
			if (!pool) {
				wait = "choose a pool";
			} else if (values.some((v) => v === "")) {
				wait = `choose ${pool.scopeLabels.filter((e, i) => values[i] === "").join(", ")} first`;
			} else {
				const division = pool.divisions.find((d) => d.values.every((v, i) => v === values[i]));
				const request = { ranges: pool.ranges, pool: pool.name, division: pool.scope.map(labelOf).join(" / ") };
				const answer = JSON.parse(globalThis.ipamNextNumber(JSON.stringify(request), division ? division.taken : ""));
				got = answer.first === undefined ? "" : String(answer.first);
				why = answer.noFree || (answer.errors || []).map((e) => e.plain || e.message).join("; ");
				refused = refused || why !== "" && form.elements[`${name}__mode`].value === "pool";
			}
			output.textContent = got;
			pending.textContent = wait;
			error.textContent = why;
			predicted.value = got;
		}
		submit.disabled = refused;
	};

	globalThis.ipamReady(dataElement.dataset.wasm).then(() => {
		form.addEventListener("input", update);
		form.addEventListener("change", update);
		update();
		form.dataset.ready = "true";
	}).catch((err) => {
		for (const element of form.querySelectorAll("[data-testid=prediction-error]")) {
			element.textContent = `The prediction could not start: ${err}`;
		}
	});
})();
