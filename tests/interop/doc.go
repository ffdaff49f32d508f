// Package interop checks zarrgw against real foreign Zarr clients, in both
// directions: zarrita.js reads the v3 arrays zarrgw writes and writes v3
// arrays zarrgw reads; Debian's zarr-python 2 reads the v2 arrays zarrgw
// writes and writes v2 arrays zarrgw reads. Through a running `zarrgw
// serve`, the clients of the Python environment of reference
// implementations (zarr-python 3 over fsspec and obstore, tensorstore, the
// zarrs pipeline, xarray) read and write over the key and S3 APIs
// (live_test.go, py/live.py).
//
// The foreign clients are installed by scripts/setup.sh. Each direction runs
// one node or python process on a JSON manifest of arrays (js/, py/). Data
// either comes from a formula every side computes (js/formula.mjs,
// py/formula.py, formula in formula_test.go) or is compared element by
// element with what zarrgw wrote. Every direction prints a summary line
// ("interop zarrita-read: N passed, M failed"); run with
//
//	bash scripts/setup.sh && go test -v ./tests/interop
//
// A missing Debian client or node module fails the tests (with the setup
// command), never skips them. A test that needs the Python environment
// (tests/support/pyenv) fails under CI=true when it is missing or stale,
// and elsewhere skips with the setup command.
//
// TestMatrix (matrix_test.go) is the generated interoperability matrix:
// py/matrix_write.py has zarr-python 3 and tensorstore write arrays over
// types, codec chains, grids, chunk key encodings and formats; zarrgw reads
// them, writes them again and copies them with cp; py/matrix_read.py has
// zarr-python 3, the zarrs pipeline, tensorstore and zarr-python 2 read what
// zarrgw wrote. The known refusals are listed in matrix_refusals_test.go.
package interop
