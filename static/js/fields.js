// The live check of a form's fields: ipamFieldCheck(form) returns a
// function that, given the mistakes the page's WebAssembly enumerator
// finds in what is typed (each {field, plain}: the server's words, from
// internal/candidates), writes each beside its input and marks the input
// (aria-invalid, aria-describedby), as the server does on a refused form.
// It says nothing of an input the user has not typed into yet, so that an
// empty form is not greeted with mistakes, and touches only the mistakes
// of the keys it is given: those the enumerator checks.
"use strict";

globalThis.ipamFieldCheck = (form, keys) => {
	const touched = new Set();
	const touch = (event) => touched.add(event.target);
	form.addEventListener("input", touch);
	form.addEventListener("change", touch);

	// keyOf is the key of a mistake's field, as the server's fieldErrorsOf
	// finds it: without indexes ("exclude" of "exclude[2]"), or one of
	// its parts.
	const keyOf = (field) => {
		const bare = field.replace(/\[[^\]]*\]/g, "");
		if (keys.includes(bare)) {
			return bare;
		}
		return bare.split(".").map((part) => part.split("__")[0]).find((part) => keys.includes(part));
	};

	const mark = (input, id, invalid) => {
		const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter((x) => x !== "" && x !== id);
		if (invalid) {
			ids.unshift(id);
			input.setAttribute("aria-invalid", "true");
		} else {
			input.removeAttribute("aria-invalid");
		}
		if (ids.length > 0) {
			input.setAttribute("aria-describedby", ids.join(" "));
		} else {
			input.removeAttribute("aria-describedby");
		}
	};

	return (errors) => {
		const said = new Map();
		for (const e of errors || []) {
			const key = keyOf(e.field);
			if (key !== undefined) {
				said.set(key, [...(said.get(key) || []), e.plain || e.message]);
			}
		}
		for (const message of form.querySelectorAll("[data-error-for]")) {
			if (!keys.includes(message.dataset.errorFor)) {
				continue;
			}
			const inputs = [...form.querySelectorAll(`[data-field-error="${message.id}"]`)];
			if (!inputs.some((input) => touched.has(input))) {
				continue;
			}
			const text = (said.get(message.dataset.errorFor) || []).join("; ");
			message.textContent = text;
			for (const input of inputs) {
				mark(input, message.id, text !== "");
			}
		}
	};
};
