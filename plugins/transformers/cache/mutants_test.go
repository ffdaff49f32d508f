package cache_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
)

// Each mutant of the cache fails the check aimed at its defect, and the
// cache itself passes them all (the tests above).
func TestChecksCatchMutants(t *testing.T) {
	mutants := map[string]struct {
		name  string
		check func(testing.TB, string) error
	}{
		cache.DefectStaleAfterWrite: {"checkWriteSeen", checkWriteSeen},
		cache.DefectKeepsRanges:     {"checkRangesDropped", checkRangesDropped},
		cache.DefectCachesErrors:    {"checkErrorNotKept", checkErrorNotKept},
		cache.DefectNoCoalescing:    {"checkCoalescing", checkCoalescing},
	}
	for defect, c := range mutants {
		t.Run(defect, func(t *testing.T) {
			err := c.check(t, defect)
			if err == nil {
				t.Fatalf("%s passes on the %s mutant", c.name, defect)
			}
			t.Logf("%s caught it: %v", c.name, err)
		})
	}
}

const envMutant = "CACHE_MUTANT"

// The store conformance suite, over a cache that keeps serving what it
// read after a write through it, fails (SetGet among others): with a long
// revalidate_after; with revalidate_after 0 the Stat of every read hides
// the defect, and the suite passes.
func TestSuiteCatchesStaleMutant(t *testing.T) {
	for _, c := range []struct {
		revalidate string
		caught     bool
	}{{"1h", true}, {"0s", false}} {
		t.Run(c.revalidate, func(t *testing.T) {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMutantChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), envMutant+"="+cache.DefectStaleAfterWrite+","+c.revalidate)
			out, err := cmd.CombinedOutput()
			failedSetGet := strings.Contains(string(out), "--- FAIL: TestMutantChild/SetGet")
			if (err != nil) != c.caught || failedSetGet != c.caught {
				t.Fatalf("suite on the stale mutant (revalidate_after %s): exit %v, SetGet failed %v; want caught %v\n%s",
					c.revalidate, err, failedSetGet, c.caught, out)
			}
		})
	}
}

// TestMutantChild runs the suite on the mutant named in the environment
// (TestSuiteCatchesStaleMutant's child); run plainly, on the cache as it
// is with a long revalidate_after: the control, which must pass.
func TestMutantChild(t *testing.T) {
	spec := os.Getenv(envMutant)
	if spec == "" {
		spec = ",1h"
	}
	defect, revalidate, _ := strings.Cut(spec, ",")
	storetest.Run(t, func(t *testing.T) store.Store {
		opts, _, err := cache.ParseConfig([]byte(`{"revalidate_after":"` + revalidate + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		c, err := cache.New(store.NewMemory(), opts)
		if err != nil {
			t.Fatal(err)
		}
		cache.SetDefect(c, defect)
		return c.Store()
	})
}
