// Reads a whole array with zarrita.js through zarrgw's key API (FetchStore),
// THREADS chunk requests at a time, once per URL given, and prints the
// seconds each read took. bench/cache/run.sh runs it from a directory
// whose node_modules is tests/interop/js's (zarrita 0.7.5).
//
// Usage: node zarrita_read.mjs ARRAY_PATH THREADS OPEN URL [URL ...]
// OPEN is "auto" (zarr.open: with a new store it looks for v2 metadata,
// .zattrs and .zarray, before zarr.json) or "v3" (zarr.open.v3).
// Output: one line per URL: "URL SECONDS ELEMENTS"
import { FetchStore } from "@zarrita/storage";
import * as zarr from "zarrita";

// queue runs at most n of the chunk reads zarr.get adds at once (its
// default runs them all together).
function queue(n) {
	const pending = [];
	const all = [];
	let active = 0;
	const next = () => {
		if (active >= n || pending.length === 0) return;
		active++;
		const { fn, resolve, reject } = pending.shift();
		fn()
			.then(resolve, reject)
			.finally(() => {
				active--;
				next();
			});
	};
	return {
		add(fn) {
			all.push(
				new Promise((resolve, reject) => {
					pending.push({ fn, resolve, reject });
					next();
				}),
			);
		},
		onIdle: () => Promise.all(all),
	};
}

const [path, threads, mode, ...urls] = process.argv.slice(2);
if (!path || !threads || !["auto", "v3"].includes(mode) || urls.length === 0) {
	console.error("usage: node zarrita_read.mjs ARRAY_PATH THREADS auto|v3 URL [URL ...]");
	process.exit(2);
}
const open = mode === "v3" ? zarr.open.v3 : zarr.open;
for (const url of urls) {
	const start = performance.now();
	const arr = await open(zarr.root(new FetchStore(url)).resolve(path), { kind: "array" });
	const got = await zarr.get(arr, null, { createQueue: () => queue(Number(threads)) });
	const seconds = (performance.now() - start) / 1000;
	console.log(`${url} ${seconds.toFixed(4)} ${got.data.length}`);
}
