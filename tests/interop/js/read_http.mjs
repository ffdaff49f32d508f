// Reads arrays with zarrita.js from a directory and through an HTTP URL
// (zarrgw's key API), and prints a digest of each, so that the two can be
// compared exactly.
//
// Usage: node read_http.mjs MANIFEST
// MANIFEST: {"root": DIR, "url": URL (optional: without it, only the
// directory is read), "arrays": ["a/b", ...]}
// Output (stdout): {"results": [{"path", "local"?, "http"?, "http_suffix"?,
//   "local_error"?, "http_error"?, "http_suffix_error"?, "count"}]}
// A digest is the SHA-256 of the elements in C order, each printed as a
// string (bigints exactly, floats with String(), "-0", "NaN"). "http" uses
// HEAD and a bounded range for suffix reads (FetchStore's default),
// "http_suffix" real suffix ranges (bytes=-N).
import "./float16.mjs";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { FetchStore, FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";

function scalar(v) {
	switch (typeof v) {
		case "bigint":
			return v.toString();
		case "number":
			return Object.is(v, -0) ? "-0" : String(v);
		default:
			return v === null || v === undefined ? "null" : String(v);
	}
}

function element(data, i) {
	return typeof data.get === "function" ? data.get(i) : data[i];
}

// digest hashes every element of a chunk {data, shape, stride} in C order.
function digest(chunk) {
	const { data, shape, stride } = chunk;
	const n = shape.reduce((a, b) => a * b, 1);
	const h = createHash("sha256");
	const idx = new Array(shape.length).fill(0);
	for (let k = 0; k < n; k++) {
		let off = 0;
		for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
		h.update(scalar(element(data, off)) + "\n");
		for (let d = shape.length - 1; d >= 0; d--) {
			if (++idx[d] < shape[d]) break;
			idx[d] = 0;
		}
	}
	return { digest: h.digest("hex"), count: n };
}

async function read(store, path) {
	const arr = await zarr.open(zarr.root(store).resolve(path), { kind: "array" });
	return digest(await zarr.get(arr));
}

function message(err) {
	const cause = err?.cause ? `: ${err.cause?.message ?? err.cause}` : "";
	return `${err?.message ?? err}${cause}`;
}

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const stores = { local: new FileSystemStore(manifest.root) };
if (manifest.url) {
	stores.http = new FetchStore(manifest.url);
	stores.http_suffix = new FetchStore(manifest.url, { useSuffixRequest: true });
}
const results = [];
for (const path of manifest.arrays) {
	const r = { path };
	for (const [name, store] of Object.entries(stores)) {
		try {
			const got = await read(store, path);
			r[name] = got.digest;
			r.count = got.count;
		} catch (err) {
			r[`${name}_error`] = message(err);
		}
	}
	results.push(r);
}
process.stdout.write(JSON.stringify({ results }));
