// Writes Zarr v3 groups and arrays with zarrita.js, elements from the
// shared formula (formula.mjs).
//
// Usage: node write.mjs MANIFEST
// MANIFEST: {"root": DIR,
//   "groups": [{"path", "attrs"}],
//   "arrays": [{"path", "dtype", "shape", "chunks", "codecs", "fill_value",
//               "separator", "written_rows", "formula", "attrs"}]}
// Only rows [0, written_rows) of the first dimension are written; the rest
// stays at the fill value. Output (stdout): {"results": [{"path", "error"?}]}.
import { readFileSync } from "node:fs";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { value } from "./formula.mjs";

const CTORS = {
	int8: Int8Array,
	int16: Int16Array,
	int32: Int32Array,
	int64: BigInt64Array,
	uint8: Uint8Array,
	uint16: Uint16Array,
	uint32: Uint32Array,
	uint64: BigUint64Array,
	float32: Float32Array,
	float64: Float64Array,
	bool: zarr.BoolArray,
	string: Array,
};

function strides(shape) {
	const s = new Array(shape.length).fill(1);
	for (let d = shape.length - 2; d >= 0; d--) s[d] = s[d + 1] * shape[d + 1];
	return s;
}

function fillValue(a) {
	if (a.fill_value === undefined) return undefined;
	if (typeof a.fill_value === "string" && a.dtype.startsWith("float")) return Number(a.fill_value);
	return a.fill_value;
}

async function writeArray(root, a) {
	const arr = await zarr.create(root.resolve(a.path), {
		shape: a.shape,
		chunkShape: a.chunks,
		dtype: a.dtype,
		codecs: a.codecs,
		fillValue: fillValue(a),
		chunkSeparator: a.separator,
		attributes: a.attrs,
	});
	const rows = a.written_rows ?? a.shape[0];
	if (rows === 0) return;
	const shape = [rows, ...a.shape.slice(1)];
	const n = shape.reduce((x, y) => x * y, 1);
	const Ctor = CTORS[a.dtype];
	if (!Ctor) throw new Error(`no typed array for ${a.dtype}`);
	const data = new Ctor(n);
	const big = Ctor === BigInt64Array || Ctor === BigUint64Array;
	for (let i = 0; i < n; i++) {
		const v = big ? BigInt(value(a.formula, i)) : value(a.formula, i);
		if (data instanceof zarr.BoolArray) data.set(i, v);
		else data[i] = v;
	}
	const sel = [zarr.slice(0, rows), ...a.shape.slice(1).map(() => null)];
	await zarr.set(arr, sel, { data, shape, stride: strides(shape) });
}

const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const root = zarr.root(new FileSystemStore(manifest.root));
const results = [];
for (const g of manifest.groups ?? []) {
	try {
		await zarr.create(root.resolve(g.path), { attributes: g.attrs });
		results.push({ path: g.path });
	} catch (err) {
		results.push({ path: g.path, error: String(err?.message ?? err) });
	}
}
for (const a of manifest.arrays) {
	try {
		await writeArray(root, a);
		results.push({ path: a.path });
	} catch (err) {
		const cause = err?.cause ? `: ${err.cause?.message ?? err.cause}` : "";
		results.push({ path: a.path, error: `${err?.message ?? err}${cause}` });
	}
}
process.stdout.write(JSON.stringify({ results }));
