// The VPC page's claim forms show the address each claim will get (the
// prefix, for a subnet), computed in the browser by the WebAssembly
// enumerator from the prefixes and taken ranges the page carries, before
// anything is submitted. The prediction is sent along, so that the
// server's answer can say when it gave another one (someone claimed the
// predicted one first).
"use strict";

(() => {
	const dataElement = document.getElementById("claim-data");
	if (!dataElement) {
		return;
	}
	const data = JSON.parse(dataElement.dataset.claims);
	// takenRanges is a compact list, passed apart so that it is parsed once.
	const preview = (input, takenRanges = "") => JSON.parse(globalThis.ipamPreview(JSON.stringify(input), takenRanges));
	const previewSubnet = (input) => JSON.parse(globalThis.ipamPreviewSubnet(JSON.stringify(input)));
	const messages = (answer) => (answer.errors || []).map((e) => e.message).join("; ");

	// bounds turns "a.b.c.d/n" into its first and last address as numbers.
	const bounds = (cidr) => {
		const [addr, bits] = cidr.split("/");
		const base = addr.split(".").reduce((n, part) => n * 256 + Number(part), 0);
		const size = 2 ** (32 - Number(bits));
		return [base, base + size - 1];
	};
	const overlaps = (a, b) => {
		const [alo, ahi] = bounds(a);
		const [blo, bhi] = bounds(b);
		return alo <= bhi && blo <= ahi;
	};

	const predictors = {
		"attach-interface": (form) => {
			const subnet = data.subnets[form.elements.subnet.value];
			if (!subnet) {
				return { error: "create a subnet first" };
			}
			const answer = preview({ pool: { cidr: data.vpc }, request: { within: subnet.cidr, reserved: [subnet.gateway] } }, subnet.taken);
			if (!answer.valid) {
				return { error: messages(answer) };
			}
			return answer.first ? { address: answer.first } : { error: `pool has no free address in ${subnet.cidr}` };
		},
		"claim-floating-ip": (form) => {
			const zone = form.elements.zone.value;
			for (const pool of data.zones[zone] || []) {
				const answer = preview({ pool: { cidr: pool.cidr, gateway: pool.gateway, exclude: pool.exclude } }, pool.taken);
				if (answer.valid && answer.first) {
					return { address: answer.first };
				}
			}
			return { error: zone ? `zone ${zone} has no free address in its public pools` : "no zone has a public pool" };
		},
		// A subnet is given by its size (the lowest free block of that
		// length, as the server takes it) or by its CIDR.
		"create-subnet": (form) => {
			const size = form.elements.prefixLength.value;
			let cidr = form.elements.cidr.value.trim();
			const gateway = form.elements.gateway.value.trim();
			if (size !== "" && cidr !== "") {
				return { error: "cidr and prefixLength both name the subnet's prefix: give one of them" };
			}
			if (size !== "") {
				const answer = previewSubnet({ vpc: data.vpcName, cidr: data.vpc, subnets: data.siblings, prefixLength: Number(size) });
				if (!answer.next) {
					return { error: messages(answer) };
				}
				cidr = answer.next[0];
			} else if (cidr === "") {
				return {};
			} else {
				const inside = preview({ pool: { cidr: data.vpc }, request: { within: cidr } });
				if (!inside.valid) {
					return { error: messages(inside).replace(/\bwithin (\S+) is outside cidr (\S+)/, "cidr $1 is outside the VPC's $2").replace(/\bwithin\b/g, "cidr") };
				}
				const sibling = data.siblings.find((s) => overlaps(s, cidr));
				if (sibling) {
					return { error: `cidr ${cidr} overlaps subnet ${sibling}` };
				}
			}
			const own = preview({ pool: { cidr: cidr, gateway: gateway } });
			if (!own.valid) {
				return { address: cidr, error: messages(own) };
			}
			return { address: cidr, detail: `with gateway ${gateway || own.first}` };
		},
	};

	const update = (form) => {
		const result = predictors[form.dataset.claim](form);
		form.querySelector("[data-prediction]").textContent = result.address || "";
		form.querySelector("[data-testid=prediction-detail]").textContent = result.detail || "";
		form.querySelector("[data-testid=prediction-error]").textContent = result.error || "";
		form.elements.predicted.value = result.address || "";
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
