package azurestore

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// testBlockSize is small so that staged uploads happen at modest sizes.
const testBlockSize = 64 << 10

func testConfig(t testing.TB, srv *servers.Azure) Config {
	return Config{Container: srv.NewContainer(t), ConnectionString: srv.ConnectionString(),
		BlockSize: testBlockSize, ListPageSize: 100}
}

func newTestStore(t testing.TB, cfg Config) *Store {
	t.Helper()
	s, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// suiteOptions fit the suite to testConfig: values several blocks long.
var suiteOptions = storetest.Options{LargeValue: 5*testBlockSize + 123}

func TestConformance(t *testing.T) {
	srv := servers.StartAzure(t)
	storetest.RunWith(t, suiteOptions, func(t *testing.T) store.Store {
		return newTestStore(t, testConfig(t, srv))
	})
}

func TestConformanceUnderPrefix(t *testing.T) {
	srv := servers.StartAzure(t)
	storetest.RunWith(t, suiteOptions, func(t *testing.T) store.Store {
		cfg := testConfig(t, srv)
		cfg.Prefix = "deep/er"
		return newTestStore(t, cfg)
	})
}
