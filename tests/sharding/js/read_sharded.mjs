// Reads sharded Zarr v3 arrays with zarrita.js and prints what it sees.
//
// Usage: node read_sharded.mjs NODE_MODULES STORE_ROOT PATH...
// zarrita is imported from NODE_MODULES (tests/interop/js/node_modules,
// installed by scripts/setup.sh). Output (stdout): {"results": [{"path",
// "shape", "values", "slice", "error"?}]}: every element in C order as a
// string; "slice" is the selection [1:3, ...] of the first dimension.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [nodeModules, root, ...paths] = process.argv.slice(2);
const load = (p) => import(pathToFileURL(join(nodeModules, p)).href);
const zarr = await load("zarrita/dist/src/index.js");
const { default: FileSystemStore } = await load("@zarrita/storage/dist/src/fs.js");

function flatten(chunk) {
	const { data, shape, stride } = chunk;
	const n = shape.reduce((a, b) => a * b, 1);
	const out = new Array(n);
	const idx = new Array(shape.length).fill(0);
	for (let k = 0; k < n; k++) {
		let off = 0;
		for (let d = 0; d < shape.length; d++) off += idx[d] * stride[d];
		out[k] = String(data[off]);
		for (let d = shape.length - 1; d >= 0; d--) {
			if (++idx[d] < shape[d]) break;
			idx[d] = 0;
		}
	}
	return out;
}

const store = zarr.root(new FileSystemStore(root));
const results = [];
for (const path of paths) {
	try {
		const arr = await zarr.open.v3(store.resolve(path), { kind: "array" });
		const all = await zarr.get(arr);
		const sel = [zarr.slice(1, 3), ...arr.shape.slice(1).map(() => null)];
		const part = await zarr.get(arr, sel);
		results.push({ path, shape: arr.shape, values: flatten(all), slice: flatten(part) });
	} catch (err) {
		results.push({ path, error: `${err?.message ?? err}` });
	}
}
process.stdout.write(JSON.stringify({ results }));
