// Loads the preview module in node as a page does and times the page's
// call, JSON.parse(ipamPreview(JSON.stringify(input), takenRanges)), for
// each input (takenRanges only when the input has one; another function
// of the module, such as ipamNextNumber, when the input names it; with
// claims, the call is JSON.parse(fn(claims, JSON.stringify(input))), the
// claims one string on every call as a VPC's page passes them to
// ipamPredictClaim).
// Usage: node harness.js WASM_EXEC_JS PREVIEW_WASM < task.json, where the
// task is {"inputs": [{"name": …, "function": "ipamPreview", "input": {…},
// "takenRanges": "…", "claims": "…"}], "warmup": n, "calls": n}; prints
// {name: {"first": ms of the first call, "ms": [per call], "answer": last
// answer}}.
"use strict";

const fs = require("fs");
globalThis.require = require;
globalThis.fs = fs;
globalThis.path = require("path");
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("perf_hooks").performance;
globalThis.crypto ??= require("crypto");

require(process.argv[2]);

const go = new Go();
WebAssembly.instantiate(fs.readFileSync(process.argv[3]), go.importObject).then((result) => {
	go.run(result.instance);
	const task = JSON.parse(fs.readFileSync(0, "utf8"));
	const out = {};
	for (const { name, function: fn = "ipamPreview", input, takenRanges, claims } of task.inputs) {
		let call = () => JSON.parse(globalThis[fn](JSON.stringify(input)));
		if (takenRanges !== undefined) {
			call = () => JSON.parse(globalThis[fn](JSON.stringify(input), takenRanges));
		} else if (claims !== undefined) {
			call = () => JSON.parse(globalThis[fn](claims, JSON.stringify(input)));
		}
		const first = performance.now();
		let answer = call();
		const firstMs = performance.now() - first;
		for (let i = 0; i < task.warmup; i++) {
			answer = call();
		}
		const ms = [];
		for (let i = 0; i < task.calls; i++) {
			const start = performance.now();
			answer = call();
			ms.push(performance.now() - start);
		}
		out[name] = { first: firstMs, ms, answer };
	}
	process.stdout.write(JSON.stringify(out));
	process.exit(0);
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
