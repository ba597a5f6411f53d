// The VPC page's claim forms show the address each claim will get,
// computed in the browser by the WebAssembly enumerator from the prefixes
// and taken ranges the page carries, before anything is submitted. The
// prediction is sent along, so that the server's answer can say when it
// gave another address (someone claimed the predicted one first).
"use strict";

(() => {
	const dataElement = document.getElementById("claim-data");
	if (!dataElement) {
		return;
	}
	const data = JSON.parse(dataElement.dataset.claims);
	// takenRanges is a compact list, passed apart so that it is parsed once.
	const preview = (input, takenRanges = "") => JSON.parse(globalThis.ipamPreview(JSON.stringify(input), takenRanges));
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
		"create-subnet": (form) => {
			const cidr = form.elements.cidr.value.trim();
			const gateway = form.elements.gateway.value.trim();
			if (cidr === "") {
				return {};
			}
			const inside = preview({ pool: { cidr: data.vpc }, request: { within: cidr } });
			if (!inside.valid) {
				return { error: messages(inside).replace(/\bwithin (\S+) is outside cidr (\S+)/, "cidr $1 is outside the VPC's $2").replace(/\bwithin\b/g, "cidr") };
			}
			const sibling = data.siblings.find((s) => overlaps(s, cidr));
			if (sibling) {
				return { error: `cidr ${cidr} overlaps subnet ${sibling}` };
			}
			const own = preview({ pool: { cidr: cidr, gateway: gateway } });
			if (!own.valid) {
				return { error: messages(own) };
			}
			return { address: gateway || own.first || "" };
		},
	};

	const update = (form) => {
		const result = predictors[form.dataset.claim](form);
		form.querySelector("[data-testid=predicted-address]").textContent = result.address || "";
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
