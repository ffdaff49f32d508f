"""The element formula shared by the interoperability tests.

Same definition as tests/interop/js/formula.mjs and the Go side: element i
(flat C-order index in the whole array) is a function of i and a formula
descriptor from the manifest.

  u(i, bits) = (i * 0x9E3779B97F4A7C15 + 3) mod 2**bits
  int        = offset + u(i, bits) as a two's complement bits-bit integer
  uint       = u(i, bits)
  float      = offset + (u(i, bits) - 2**(bits-1)) / div
  bool       = u(i, 8) mod 3 == 0
  string     = "v" + str(i) + SUFFIX[i mod 4]
  unicode    = string, cut to width code points
  bytes      = ASCII "b" + str(i), cut to width bytes
"""

MULT = 0x9E3779B97F4A7C15
SUFFIX = ["", "\u00e9", "\u6f22\u5b57", "\U0001f642x"]


def u(i, bits):
    return (i * MULT + 3) & ((1 << bits) - 1)


def string(i):
    return "v%d%s" % (i, SUFFIX[i % 4])


def value(f, i):
    kind = f["kind"]
    if kind == "int":
        v = u(i, f["bits"])
        if v >= 1 << (f["bits"] - 1):
            v -= 1 << f["bits"]
        return f.get("offset", 0) + v
    if kind == "uint":
        return u(i, f["bits"])
    if kind == "float":
        return f.get("offset", 0) + (u(i, f["bits"]) - 2 ** (f["bits"] - 1)) / f["div"]
    if kind == "bool":
        return u(i, 8) % 3 == 0
    if kind == "string":
        return string(i)
    if kind == "unicode":
        return string(i)[: f["width"]]
    if kind == "bytes":
        return ("b%d" % i)[: f["width"]].encode("ascii")
    raise ValueError("unknown formula %r" % (f,))
