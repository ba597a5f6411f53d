// The in-browser candidate preview: loads the WebAssembly build of the
// enumerator once, then recomputes figures and map on every keystroke
// without a request to the server, and marks each field the server would
// refuse, beside it, in the server's words (fields.js).
"use strict";

(() => {
	const root = document.querySelector("[data-preview]");
	if (!root) {
		return;
	}
	const form = root.querySelector("form");
	const out = (id) => root.querySelector(`[data-testid="${id}"]`);
	const stateNames = { ".": "free", t: "taken", n: "network", b: "broadcast", a: "subnet-router anycast", g: "gateway", x: "excluded", r: "reserved", o: "outside", O: "outside the pool" };

	// numberOf turns "a.b.c.d" into a number, for naming map cells.
	const numberOf = (a) => a.split(".").reduce((n, part) => n * 256 + Number(part), 0);
	const addressOf = (n) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
	// The i-th address of an IPv6 map (a /120 or longer: its last group
	// varies), in RFC 5952 form as the server writes it.
	const groupsOf = (a) => {
		const [head, tail] = a.includes("::") ? a.split("::") : [a, null];
		const h = head ? head.split(":") : [];
		const t = tail ? tail.split(":") : [];
		const zeros = tail === null ? [] : Array(8 - h.length - t.length).fill("0");
		return [...h, ...zeros, ...t].map((g) => parseInt(g, 16));
	};
	const rfc5952 = (groups) => {
		let best = -1;
		let length = 1;
		for (let i = 0; i < 8; i++) {
			let j = i;
			while (j < 8 && groups[j] === 0) {
				j++;
			}
			if (j - i > length) {
				best = i;
				length = j - i;
			}
			i = j > i ? j - 1 : i;
		}
		const hex = groups.map((g) => g.toString(16));
		if (best < 0) {
			return hex.join(":");
		}
		return `${hex.slice(0, best).join(":")}::${hex.slice(best + length).join(":")}`;
	};
	const address6Of = (scope, i) => {
		const groups = groupsOf(scope.split("/")[0]);
		groups[7] += i;
		return rfc5952(groups);
	};

	// countText writes the enumerator's exact figure (count, readable and
	// power forms) as views.CountText does: in full below 2^32, otherwise
	// as the power of two it is near with its size in words ("2^64 − 1
	// (18.4 quintillion)"), or in words alone.
	const countText = (figure) => {
		if (BigInt(figure.count) < 2n ** 32n) {
			return Number(figure.count).toLocaleString("en");
		}
		return figure.power ? `${figure.power} (${figure.readable})` : figure.readable;
	};

	function drawMap(box, map) {
		box.replaceChildren();
		if (!map || (!map.cells && !map.blocks)) {
			return;
		}
		const v6 = map.scope.includes(":");
		const base = v6 ? 0 : numberOf(map.scope.split("/")[0]);
		if (map.cells) {
			box.className = "addrmap cells";
			[...map.cells].forEach((code, i) => {
				const cell = document.createElement("span");
				cell.className = code === "." ? "s-f" : `s-${code}`;
				cell.title = `${v6 ? address6Of(map.scope, i) : addressOf(base + i)}: ${stateNames[code] || code}`;
				box.append(cell);
			});
			return;
		}
		box.className = "addrmap blocks";
		for (const block of map.blocks) {
			const cell = document.createElement("span");
			const addresses = block.size + block.blocked;
			const used = block.size === 0 ? 1 : (block.size - block.free) / block.size;
			cell.className = `u${Math.ceil(used * 5)}` + (block.blocked > 0 ? " has-x" : "");
			cell.title = `${block.prefix}: ${block.free.toLocaleString("en")} of ${block.size.toLocaleString("en")} free, ${(addresses - block.size).toLocaleString("en")} not handed out`;
			box.append(cell);
		}
	}

	// The fields the enumerator checks, marked as the user types.
	const check = globalThis.ipamFieldCheck(form, ["name", "cidr", "gateway", "exclude", "zone"]);

	function update() {
		const data = new FormData(form);
		const input = {
			name: data.get("name").trim(),
			zone: data.get("zone").trim(),
			pool: {
				cidr: data.get("cidr").trim(),
				gateway: data.get("gateway").trim(),
				exclude: data.get("exclude").split(/[\n,]/).map((s) => s.trim()).filter((s) => s !== ""),
			},
			map: true,
		};
		const answer = JSON.parse(globalThis.ipamPreview(JSON.stringify(input)));
		// The mistakes are said beside their fields, the server's first
		// preview's too.
		out("preview-error").textContent = "";
		check(answer.errors);
		out("preview-count").textContent = answer.valid ? countText(answer.sizeCount) : "";
		out("preview-first").textContent = answer.first || "";
		out("preview-last").textContent = answer.last || "";
		drawMap(out("address-map"), answer.map);
	}

	globalThis.ipamReady(root.dataset.wasm).then(() => {
		form.addEventListener("input", update);
		if (form.dataset.previewOnly !== undefined) {
			form.addEventListener("submit", (event) => event.preventDefault());
		}
		update();
		root.dataset.ready = "true";
	}).catch((err) => {
		out("preview-error").textContent = `The preview could not start: ${err}`;
	});
})();
