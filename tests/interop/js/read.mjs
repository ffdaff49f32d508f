// Reads Zarr v3 nodes with zarrita.js and prints what it sees as JSON.
//
// Usage: node read.mjs MANIFEST
// MANIFEST: {"root": DIR, "nodes": [{"path": "a/b", "kind": "array"|"group"}]}
// Output (stdout): {"results": [{"path", "kind", "error"?, "attrs",
//   "shape", "chunks", "dtype", "fill_value", "values"}]}
// Every element is listed in C order. Integers and floats are printed as
// strings (bigints exactly; floats with String(), "-0", "NaN",
// "Infinity"), booleans as booleans, strings as strings.
import "./float16.mjs";
import { readFileSync } from "node:fs";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";

function scalar(v) {
	switch (typeof v) {
		case "bigint":
			return v.toString();
		case "number":
			return Object.is(v, -0) ? "-0" : String(v);
		case "boolean":
		case "string":
			return v;
		default:
			return v === null || v === undefined ? null : String(v);
	}
}

function element(data, i) {
	return typeof data.get === "function" ? data.get(i) : data[i];
}

// Lists every element of a chunk {data, shape, stride} in C order.
function cOrder(chunk) {
	const { data, shape, stride } = chunk;
	const n = shape.reduce((a, b) => a * b, 1);
	const out = new Array(n);
	const idx = new Array(shape.length).fill(0);
	for (let k = 0; k < n; k++) {
		let off = 0;
		for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
		out[k] = scalar(element(data, off));
		for (let d = shape.length - 1; d >= 0; d--) {
			if (++idx[d] < shape[d]) break;
			idx[d] = 0;
		}
	}
	return out;
}

async function readNode(root, node) {
	const loc = root.resolve(node.path);
	if (node.kind === "group") {
		const g = await zarr.open.v3(loc, { kind: "group" });
		return { attrs: g.attrs };
	}
	const arr = await zarr.open.v3(loc, { kind: "array" });
	const chunk = await zarr.get(arr);
	return {
		attrs: arr.attrs,
		shape: arr.shape,
		chunks: arr.chunks,
		dtype: arr.dtype,
		fill_value: scalar(arr.fillValue),
		values: cOrder(chunk),
	};
}

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const root = zarr.root(new FileSystemStore(manifest.root));
const results = [];
for (const node of manifest.nodes) {
	try {
		results.push({ path: node.path, kind: node.kind, ...(await readNode(root, node)) });
	} catch (err) {
		const cause = err?.cause ? `: ${err.cause?.message ?? err.cause}` : "";
		results.push({ path: node.path, kind: node.kind, error: `${err?.message ?? err}${cause}` });
	}
}
process.stdout.write(JSON.stringify({ results }));
