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
	// The name typed, checked as the server checks it once there is one.
	const nameOf = (form) => form.elements.name.value.trim() || undefined;
	// Each form's request; null while it asks for nothing yet.
	const requests = {
		// The VM is the one the console knows by its hostname (its uid
		// is the form's data-vm-uid and the hostname), whose uid and NIC
		// choose a stable opaque address; before a hostname is typed, a
		// VPC of those predicts the IPv4 address only (web/claim_predict.go).
		"attach-interface": (form) => {
			const hostname = form.elements.hostname.value.trim();
			const claim = { subnet: form.elements.subnet.value, vmUid: form.dataset.vmUid + hostname, nic: Number(form.elements.nic.value.trim() || "0") };
			if ("opaque" in form.dataset && hostname === "") {
				claim.family = "IPV4";
			}
			return { interface: claim };
		},
		"claim-floating-ip": (form) => ({ floatingIP: { zone: form.elements.zone.value }, name: nameOf(form) }),
		// A subnet is given by its size (the lowest free block of that
		// length) or by its CIDR; in a dual-stack VPC its IPv6 prefix too,
		// by its CIDR or else its size, as the server reads the form
		// (web/vpc_subnet_create.go).
		"create-subnet": (form) => {
			const size = form.elements.prefixLength.value;
			const cidr = form.elements.cidr.value.trim();
			const request = { name: nameOf(form) };
			if (size !== "" || cidr !== "") {
				request.subnet = { cidr: cidr, prefixLength: Number(size), gateway: form.elements.gateway.value.trim() };
			}
			if (form.elements.ipv6PrefixLength) {
				const cidr6 = form.elements.ipv6Cidr.value.trim();
				request.ipv6Subnet = cidr6 !== "" ? { cidr: cidr6 } : { prefixLength: Number(form.elements.ipv6PrefixLength.value.replace(/^\//, "")) };
			}
			return request.subnet || request.ipv6Subnet ? request : null;
		},
	};
	// The fields each form's prediction checks, marked as the user types.
	const checked = {
		"attach-interface": ["subnet"],
		"claim-floating-ip": ["name", "zone"],
		"create-subnet": ["name", "prefixLength", "cidr", "gateway", "ipv6PrefixLength", "ipv6Cidr"],
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
		// The IPv6 side of a dual-stack VPC's claims: an interface's
		// address, or a subnet's prefix and gateway.
		const out6 = form.querySelector("[data-prediction6]");
		if (out6) {
			const six = answer.ipv6Address || answer.ipv6Cidr || "";
			out6.textContent = six;
			form.elements.predicted6.value = six;
			form.querySelector("[data-prediction6-detail]").textContent = answer.ipv6Gateway ? `with gateway ${answer.ipv6Gateway}`
				: request && request.interface && request.interface.family === "IPV4" ? "once the VM's hostname is typed: its address derives from it" : "";
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
