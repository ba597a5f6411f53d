// Loads the WebAssembly build of the candidate enumerator once per page.
// ipamReady(url) resolves when globalThis.ipamPreview(json) can be called.
"use strict";

globalThis.ipamReady = (url) => {
	if (!globalThis.ipamReadyPromise) {
		const go = new Go();
		globalThis.ipamReadyPromise = WebAssembly.instantiateStreaming(fetch(url), go.importObject).then((result) => {
			go.run(result.instance);
		});
	}
	return globalThis.ipamReadyPromise;
};
