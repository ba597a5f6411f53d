// Loads the preview module in node the way a page does, answers every
// input of a JSON array read from stdin, and prints the answers as a JSON
// array. Used by preview_test.go: node harness.js WASM_EXEC_JS PREVIEW_WASM
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
	const inputs = JSON.parse(fs.readFileSync(0, "utf8"));
	// An input is a JSON string, or [json, takenRanges] for the two-argument
	// form a page uses, both for ipamPreview; or {function, args} for any
	// function of the module.
	const answers = inputs.map((input) => {
		let fn = "ipamPreview";
		let args = Array.isArray(input) ? input : [input];
		if (input !== null && typeof input === "object" && !Array.isArray(input)) {
			({ function: fn, args } = input);
		}
		const start = performance.now();
		const output = globalThis[fn](...args);
		return { output, ms: performance.now() - start };
	});
	process.stdout.write(JSON.stringify(answers));
	process.exit(0);
}).catch((err) => {
	console.error(err);
	process.exit(1);
});
