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
	const stateNames = { ".": "free", t: "taken", n: "network", b: "broadcast", g: "gateway", x: "excluded", r: "reserved", o: "outside", O: "outside the pool" };

	// numberOf turns "a.b.c.d" into a number, for naming map cells.
	const numberOf = (a) => a.split(".").reduce((n, part) => n * 256 + Number(part), 0);
	const addressOf = (n) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");

	function drawMap(box, map) {
		box.replaceChildren();
		if (!map) {
			return;
		}
		const base = numberOf(map.scope.split("/")[0]);
		if (map.cells) {
			box.className = "addrmap cells";
			[...map.cells].forEach((code, i) => {
				const cell = document.createElement("span");
				cell.className = code === "." ? "s-f" : `s-${code}`;
				cell.title = `${addressOf(base + i)}: ${stateNames[code] || code}`;
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
		out("preview-count").textContent = answer.valid ? answer.size.toLocaleString("en") : "";
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
