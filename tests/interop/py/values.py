"""How the interop scripts print an element, so that the Go side compares
values the same way whatever python reads them with (zarr, xarray)."""

import numpy as np


def scalar(v):
    if v is None:
        return None
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).hex()
    if isinstance(v, (str, np.str_)):
        return str(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return repr(v)
