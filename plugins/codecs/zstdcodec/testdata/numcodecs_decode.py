"""Decodes with numcodecs (libzstd, as zarr-python 2 and 3 use it) each
NAME.zst frame in the directory argv[1], and prints a JSON object: for
each NAME, "equal" when the frame decodes to the bytes of NAME.raw,
"differs" when it decodes to other bytes, else the error's text."""
import json
import os
import sys

import numcodecs

directory = sys.argv[1]
codec = numcodecs.Zstd()
results = {}
for entry in sorted(os.listdir(directory)):
    name, ext = os.path.splitext(entry)
    if ext != ".zst":
        continue
    with open(os.path.join(directory, entry), "rb") as f:
        frame = f.read()
    with open(os.path.join(directory, name + ".raw"), "rb") as f:
        want = f.read()
    try:
        got = bytes(codec.decode(frame))
        results[name] = "equal" if got == want else "differs"
    except Exception as e:  # the test reports which frame and why
        results[name] = "%s: %s" % (type(e).__name__, e)
json.dump(results, sys.stdout)
