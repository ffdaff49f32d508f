package storecache

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/core/store/storetest"
	"github.com/zarrgw/zarrgw/host/serve/server/metrics"
)

// The metadata cache over a dataset's store keeps exactly the optional
// reads and listings of the store below (an S3 listing with sizes costs
// no Stat per key through it) and claims none the store lacks.
func TestMetaCacheForwardsOptional(t *testing.T) {
	count := metrics.Counters{Hit: prometheus.NewCounter(prometheus.CounterOpts{Name: "h"}), Miss: prometheus.NewCounter(prometheus.CounterOpts{Name: "m"})}
	storetest.RunForwarding(t, func(_ testing.TB, inner store.Store) store.Store {
		s, _ := WithMetaCache(inner, 1<<20, time.Hour, count)
		return s
	}, storetest.ForwardOptions{})
}
