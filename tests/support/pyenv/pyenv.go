// Package pyenv finds the Python environment of the reference
// implementations (zarr-python 3, tensorstore, zarrs, kerchunk,
// VirtualiZarr, xarray ...) that scripts/setup.sh builds from the lock
// scripts/python/requirements.txt, for the tests that run them.
//
// The environment lives in the user's cache directory, keyed by the lock's
// hash ($XDG_CACHE_HOME/zarrgw/pyenv-HASH16, ~/.cache when unset), so a
// fresh clone of the same lock finds the one already built. Its marker file,
// written by setup.sh once the install succeeded, holds the lock's full
// hash. ZARRGW_PYTHON3 names another interpreter instead (it must import
// what the test asks for).
package pyenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// EnvVar overrides the interpreter: the path of a python3 to use.
const EnvVar = "ZARRGW_PYTHON3"

// Marker is the file in the environment that holds the lock's sha256.
const Marker = "zarrgw-lock.sha256"

// importTimeout bounds the check that the modules import (tensorstore and
// pyarrow are large: a cold import on a loaded machine takes seconds).
const importTimeout = 2 * time.Minute

// Lock is the path of the requirements file the environment is built from.
func Lock() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "python", "requirements.txt")
}

// Dir is where scripts/setup.sh builds the environment for the lock's
// current contents, and the lock's full hash.
func Dir() (dir, lockHash string, err error) {
	b, err := os.ReadFile(Lock())
	if err != nil {
		return "", "", fmt.Errorf("reading the lock: %w", err)
	}
	sum := sha256.Sum256(b)
	lockHash = hex.EncodeToString(sum[:])
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", "", fmt.Errorf("no cache directory for the Python environment: %w", err)
	}
	return filepath.Join(cache, "zarrgw", "pyenv-"+lockHash[:16]), lockHash, nil
}

// Find returns the environment's python3: ZARRGW_PYTHON3 when set,
// otherwise the one setup.sh built for the current lock, with the reason
// when there is none or it is out of date.
func Find() (string, error) {
	if p := os.Getenv(EnvVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVar, p, err)
		}
		return p, nil
	}
	dir, lockHash, err := Dir()
	if err != nil {
		return "", err
	}
	marker, err := os.ReadFile(filepath.Join(dir, Marker))
	if err != nil {
		return "", fmt.Errorf("the Python environment for the current lock is not built (%w)", err)
	}
	if got := strings.TrimSpace(string(marker)); got != lockHash {
		return "", fmt.Errorf("the Python environment %s was built from another lock (%s, want %s)", dir, got, lockHash)
	}
	return filepath.Join(dir, "bin", "python3"), nil
}

// Python returns the environment's python3 after checking that it imports
// modules. When it cannot, the test fails under CI=true and is skipped
// otherwise, with the reason and the setup command (servers.Unavailable).
func Python(t testing.TB, modules ...string) string {
	t.Helper()
	py, err := Find()
	if err == nil {
		err = imports(py, modules)
	}
	if err != nil {
		servers.Unavailable(t, "Python reference implementations: %v", err)
	}
	return py
}

// imports runs py on an import of each module, and returns what it said
// when one fails.
func imports(py string, modules []string) error {
	if len(modules) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), importTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot import %s: %w: %s", py, strings.Join(modules, ", "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
