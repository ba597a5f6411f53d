// The VPC page's claim forms show the address each claim will get (the
// prefix, for a subnet). The server draws the first prediction
// (web/claim_predict.go); this script computes it again as the user
// types, with the same enumerator built as WebAssembly, from the claims
// the page carries (its subnets, its zones' public pools and their taken
// ranges), before anything is submitted. The enumerator answers as the
// server does, in the server's words; this script only reads the forms
// and writes the answers, each mistake beside its field (fields.js). The prediction is
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
	// A dual-stack VPC's subnets with an IPv6 prefix: the preview of each
	// in the VPC's IPv6 pool and its taken addresses (web/claim_predict6.go).
	const ipv6 = dataElement.dataset.ipv6 ? JSON.parse(dataElement.dataset.ipv6) : {};
	const predict6 = (subnet) => {
		const claim = ipv6[subnet];
		if (!claim) {
			return { address: "", why: "" };
		}
		const answer = JSON.parse(globalThis.ipamPreview(JSON.stringify(claim.input), claim.taken));
		if (answer.first) {
			return { address: answer.first, why: "" };
		}
		const errors = (answer.errors || []).map((e) => e.plain || e.message).join("; ");
		return { address: "", why: errors || `no free IPv6 address in subnet ${subnet}` };
	};

	// The name typed, checked as the server checks it once there is one.
	const nameOf = (form) => form.elements.name.value.trim() || undefined;
	// Each form's request; null while it asks for nothing yet.
	const requests = {
		"attach-interface": (form) => ({ interface: { subnet: form.elements.subnet.value } }),
		"claim-floating-ip": (form) => ({ floatingIP: { zone: form.elements.zone.value }, name: nameOf(form) }),
		// A subnet is given by its size (the lowest free block of that
		// length) or by its CIDR.
		"create-subnet": (form) => {
			const size = form.elements.prefixLength.value;
			const cidr = form.elements.cidr.value.trim();
			if (size === "" && cidr === "") {
				return null;
			}
			return { subnet: { cidr: cidr, prefixLength: Number(size), gateway: form.elements.gateway.value.trim() }, name: nameOf(form) };
		},
	};
	// The fields each form's prediction checks, marked as the user types.
	const checked = {
		"attach-interface": ["subnet"],
		"claim-floating-ip": ["name", "zone"],
		"create-subnet": ["name", "prefixLength", "cidr", "gateway"],
	};

	// A prediction that the server will refuse the claim disables the
	// form's button, and the line above it says why, until the form
	// changes into one the server will take.
	const update = (form, check) => {
		const request = requests[form.dataset.claim](form);
		const answer = request ? predict(request) : {};
		const got = answer.address || answer.cidr || "";
		const why = (answer.errors || []).map((e) => e.plain || e.message).join("; ");
		form.querySelector("[data-prediction]").textContent = got;
		form.querySelector("[data-testid=prediction-detail]").textContent = answer.gateway ? `with gateway ${answer.gateway}` : "";
		form.querySelector("[data-testid=prediction-error]").textContent = why;
		form.querySelector("button[type=submit]").disabled = why !== "";
		form.elements.predicted.value = got;
		const out6 = form.querySelector("[data-prediction6]");
		if (out6) {
			const six = predict6(form.elements.subnet.value);
			out6.textContent = six.address;
			form.querySelector("[data-testid=prediction-ipv6-error]").textContent = six.why;
			form.elements.predicted6.value = six.address;
		}
		check(answer.errors);
	};

	globalThis.ipamReady(dataElement.dataset.wasm).then(() => {
		for (const form of document.querySelectorAll("form[data-claim]")) {
			const check = globalThis.ipamFieldCheck(form, checked[form.dataset.claim]);
			form.addEventListener("input", () => update(form, check));
			form.addEventListener("change", () => update(form, check));
			update(form, check);
			form.dataset.ready = "true";
		}
	}).catch((err) => {
		for (const element of document.querySelectorAll("[data-testid=prediction-error]")) {
			element.textContent = `The prediction could not start: ${err}`;
		}
	});
})();
