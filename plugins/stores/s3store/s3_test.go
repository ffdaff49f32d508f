package s3store

import (
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// testConfig is a store on a fresh bucket of srv, with the smallest parts
// S3 allows so that multipart uploads happen at modest sizes.
func testConfig(t testing.TB, srv *servers.S3) Config {
	return Config{
		Bucket: srv.NewBucket(t), Endpoint: srv.Endpoint, Region: srv.Region,
		AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey,
		PartSize: MinPartSize, ListPageSize: 100,
	}
}

func newTestStore(t testing.TB, cfg Config) *Store {
	t.Helper()
	s, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// suiteOptions fit the suite to testConfig: values just above the part
// size, keys in many pages, ETags that digest the content.
var suiteOptions = storetest.Options{LargeValue: 2*MinPartSize + 123, VersionsFromContent: true}

func TestConformance(t *testing.T) {
	srv := servers.StartS3(t)
	storetest.RunWith(t, suiteOptions, func(t *testing.T) store.Store {
		return newTestStore(t, testConfig(t, srv))
	})
}

func TestConformanceUnderPrefix(t *testing.T) {
	srv := servers.StartS3(t)
	storetest.RunWith(t, suiteOptions, func(t *testing.T) store.Store {
		cfg := testConfig(t, srv)
		cfg.Prefix = "deep/er"
		return newTestStore(t, cfg)
	})
}
