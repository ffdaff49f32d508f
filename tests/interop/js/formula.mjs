// The element formula shared by the interoperability tests (the Go side
// and tests/interop/py/formula.py compute the same values): element i
// (flat C-order index in the whole array) of an array is a function of i
// and a formula descriptor from the manifest.
//
//   u(i, bits)  = (i * 0x9E3779B97F4A7C15 + 3) mod 2^bits
//   int         = offset + u(i, bits) as a two's complement bits-bit integer
//   uint        = u(i, bits)
//   float       = offset + (u(i, bits) - 2^(bits-1)) / div
//   bool        = u(i, 8) mod 3 == 0
//   string      = "v" + i + SUFFIX[i mod 4]
//   unicode     = string, cut to width code points
//   bytes       = ASCII "b" + i, cut to width bytes
const MULT = 0x9e3779b97f4a7c15n;
const SUFFIX = ["", "é", "漢字", "🙂x"];

export function u(i, bits) {
	return (BigInt(i) * MULT + 3n) & ((1n << BigInt(bits)) - 1n);
}

export function str(i) {
	return `v${i}${SUFFIX[i % 4]}`;
}

// value returns element i as a JS value: bigint for 64-bit integers,
// number for other numbers, boolean or string otherwise.
export function value(f, i) {
	switch (f.kind) {
		case "int": {
			let v = u(i, f.bits);
			if (v >= 1n << BigInt(f.bits - 1)) v -= 1n << BigInt(f.bits);
			v += BigInt(f.offset ?? 0);
			return f.bits === 64 ? v : Number(v);
		}
		case "uint": {
			const v = u(i, f.bits);
			return f.bits === 64 ? v : Number(v);
		}
		case "float":
			return (f.offset ?? 0) + (Number(u(i, f.bits)) - 2 ** (f.bits - 1)) / f.div;
		case "bool":
			return u(i, 8) % 3n === 0n;
		case "string":
			return str(i);
		case "unicode":
			return Array.from(str(i)).slice(0, f.width).join("");
		case "bytes":
			return `b${i}`.slice(0, f.width);
	}
	throw new Error(`unknown formula ${JSON.stringify(f)}`);
}
