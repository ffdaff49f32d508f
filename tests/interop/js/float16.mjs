// Gives the runtime a Float16Array where it has none (node 20 here), the
// way users of zarrita.js on such runtimes do, so float16 arrays are read
// as numbers. Imported before zarrita: ES modules run in import order.
import { Float16Array } from "@petamoriken/float16";

if (typeof globalThis.Float16Array === "undefined") {
	globalThis.Float16Array = Float16Array;
}
