// The VPC page's claim forms show the address each claim will get (the
// prefix, for a subnet). The server draws the first prediction
// (web/claim_predict.go); this script computes it again as the user
// types, with the same enumerator built as WebAssembly, from the claims
// the page carries (its subnets, its zones' public pools and their taken
// ranges), before anything is submitted. The enumerator answers as the
// server does, in the server's words; this script only reads the forms
// and writes the answers. The prediction is
// sent along, so that the server's answer can say when it gave another one
// (someone claimed the predicted one first).
"use strict";

(() => {
	const dataElement = document.getElementById("claim-data");
	if (!dataElement) {
		return;
	}
	// The same string on every call: the module parses it once.
	const claims = dataElement.dataset.claims;
	const predict = (request) => JSON.parse(globalThis.ipamPredictClaim(claims, JSON.stringify(request)));

	// Each form's request; null while it asks for nothing yet.
	const requests = {
		"attach-interface": (form) => ({ interface: { subnet: form.elements.subnet.value } }),
		"claim-floating-ip": (form) => ({ floatingIP: { zone: form.elements.zone.value } }),
		// A subnet is given by its size (the lowest free block of that
		// length) or by its CIDR.
		"create-subnet": (form) => {
			const size = form.elements.prefixLength.value;
			const cidr = form.elements.cidr.value.trim();
			if (size === "" && cidr === "") {
				return null;
			}
			return { subnet: { cidr: cidr, prefixLength: Number(size), gateway: form.elements.gateway.value.trim() } };
		},
	};

	const update = (form) => {
		const request = requests[form.dataset.claim](form);
		const answer = request ? predict(request) : {};
		const got = answer.address || answer.cidr || "";
		form.querySelector("[data-prediction]").textContent = got;
		form.querySelector("[data-testid=prediction-detail]").textContent = answer.gateway ? `with gateway ${answer.gateway}` : "";
		form.querySelector("[data-testid=prediction-error]").textContent = (answer.errors || []).map((e) => e.message).join("; ");
		form.elements.predicted.value = got;
	};

	globalThis.ipamReady(dataElement.dataset.wasm).then(() => {
		for (const form of document.querySelectorAll("form[data-claim]")) {
			form.addEventListener("input", () => update(form));
			form.addEventListener("change", () => update(form));
			update(form);
			form.dataset.ready = "true";
		}
	}).catch((err) => {
		for (const element of document.querySelectorAll("[data-testid=prediction-error]")) {
			element.textContent = `The prediction could not start: ${err}`;
		}
	});
})();
