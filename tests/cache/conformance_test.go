package cache

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/plugins/stores/s3store"
	"github.com/zarrgw/zarrgw/plugins/transformers/cache"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The store conformance suite over the cache over the s3 store, in
// process, against versitygw (plugins/transformers/cache runs it over
// the memory and fs stores, tests/plugins out of process over memory):
// revalidating every read; trusting versions for an hour with a memory
// tier small enough to evict all along; and with a disk tier. Whatever
// the suite reads after a write through the stack is what it wrote.
func TestConformanceOverS3(t *testing.T) {
	srv := servers.StartS3(t)
	configs := []struct{ name, cfg string }{
		{"revalidate_0", `{"revalidate_after":"0s"}`},
		{"small_memory_1h", `{"revalidate_after":"1h","negative_ttl":"1h","memory":"64KiB"}`},
		{"disk_1h", `{"revalidate_after":"1h","memory":"64KiB","disk":{"path":%q,"size":"64MiB"}}`},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			storetest.RunWith(t, storetest.Options{LargeValue: 2*s3store.MinPartSize + 123, VersionsFromContent: true},
				func(t *testing.T) store.Store {
					next, err := s3store.New(t.Context(), s3store.Config{Bucket: srv.NewBucket(t), Endpoint: srv.Endpoint,
						Region: srv.Region, AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey,
						PartSize: s3store.MinPartSize, ListPageSize: 100})
					if err != nil {
						t.Fatal(err)
					}
					cfg := c.cfg
					if c.name == "disk_1h" {
						cfg = fmt.Sprintf(cfg, filepath.Join(t.TempDir(), "cache"))
					}
					s, err := cache.Registration.New(context.Background(), json.RawMessage(cfg), next)
					if err != nil {
						t.Fatal(err)
					}
					return s
				})
		})
	}
}
