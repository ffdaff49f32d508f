package conformance

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/zarrgw/zarrgw/core/array"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
	"github.com/zarrgw/zarrgw/tests/support/fixtures"
	"github.com/zarrgw/zarrgw/tests/support/servers"
)

// The fixture tree uploaded to versitygw decodes exactly when read back by
// s3:// LOCATION, with nothing but the conventional environment set.
func TestConformanceS3(t *testing.T) {
	s3 := servers.StartS3(t)
	bucket := s3.NewBucket(t)
	t.Setenv("AWS_ENDPOINT_URL", s3.Endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.SecretKey)
	t.Setenv("AWS_REGION", s3.Region)
	runOverCloud(t, "s3", "s3://"+bucket)
}

// The same over Azurite, by az:// LOCATION, the account from
// AZURE_STORAGE_CONNECTION_STRING.
func TestConformanceAzure(t *testing.T) {
	az := servers.StartAzure(t)
	container := az.NewContainer(t)
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", az.ConnectionString())
	runOverCloud(t, "azure", "az://"+container)
}

// runOverCloud uploads every fixture file below root (a LOCATION) and runs
// the conformance check on what comes back.
func runOverCloud(t *testing.T, label, root string) {
	ctx := context.Background()
	fx := fixtures.Dir(t)
	parts := registry.Bundled().InProcess()
	src, err := location.Open(ctx, parts, fx)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := location.Open(ctx, parts, root)
	if err != nil {
		t.Fatal(err)
	}
	opts := parts.ArrayOptions()
	s, err := transfer.Run(ctx, transfer.Endpoint{Name: fx, Store: src, Options: opts},
		transfer.Endpoint{Name: root, Store: dst, Options: opts}, transfer.Options{Jobs: 32})
	if err != nil {
		t.Fatalf("upload: %v (%s)", err, s)
	}
	c := RunAs(t, label, func(dir string) (store.Store, error) {
		rel, err := filepath.Rel(fx, dir)
		if err != nil {
			return nil, err
		}
		return location.Open(ctx, parts, root+"/"+filepath.ToSlash(rel))
	}, array.Options{Codecs: opts.Codecs, Transformers: opts.Transformers})
	if c.Passed < 113 || c.Failed > 0 {
		t.Fatalf("%d passed, %d failed over %s", c.Passed, c.Failed, label)
	}
}
