package plugins

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/runtime/launcher"
)

// listedKeys is how many keys the listing test stores: several pages.
const listedKeys = 2500

// A store served by a plugin, listed with sizes in pages of 1000 the way
// the gateway's S3 ListObjectsV2 lists (store.ListInfo from the last key
// of the page before, one key read past a full page to know it is
// truncated), costs the plugin's store no Stat and no directory listing:
// the sizes come with the keys, in one List call a page. Without sorted
// listings across the boundary it took a Stat call per key listed.
func TestListingWithSizesMakesNoStat(t *testing.T) {
	l, _ := newLauncher(t)
	p := addPlugin(t, l, "example.org/test/memory", testPluginBin, nil, "memory")
	ctx := context.Background()
	config := json.RawMessage(`{"test":"listing"}`)
	s, err := p.Store(ctx, "counted", config)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := fillListed(t, s)
	before := callCounts(t, p, config, "stat", "list_dir", "list")

	var got []store.Entry
	pages := 0
	for from, more := "", true; more; pages++ {
		var page []store.Entry
		page, more = listPage(t, s, from, 1000)
		got = append(got, page...)
		from = page[len(page)-1].Key
	}

	after := callCounts(t, p, config, "stat", "list_dir", "list")
	t.Logf("%d keys in %d pages; the plugin's store saw %d Stat, %d ListDir and %d listing calls",
		len(got), pages, after["stat"]-before["stat"], after["list_dir"]-before["list_dir"], after["list"]-before["list"])
	if !slices.EqualFunc(got, want, func(a, b store.Entry) bool { return a.Key == b.Key && a.Info.Size == b.Info.Size }) {
		t.Fatalf("listed %d entries, not the %d stored with their sizes", len(got), len(want))
	}
	if n := after["stat"] - before["stat"]; n != 0 {
		t.Errorf("listing %d keys made %d Stat calls in the plugin, want 0", len(got), n)
	}
	if n := after["list_dir"] - before["list_dir"]; n != 0 {
		t.Errorf("listing %d keys made %d ListDir calls in the plugin, want 0", len(got), n)
	}
}

// fillListed stores listedKeys keys of several sizes and returns them in
// byte order with their sizes.
func fillListed(t *testing.T, s store.Store) []store.Entry {
	t.Helper()
	var want []store.Entry
	for i := range listedKeys {
		key := fmt.Sprintf("t2m/c/%d/%d", i/50, i%50)
		value := make([]byte, 1+i%13)
		if _, err := s.Set(context.Background(), key, value, store.Condition{}); err != nil {
			t.Fatal(err)
		}
		want = append(want, store.Entry{Key: key, Info: store.Info{Size: int64(len(value))}})
	}
	slices.SortFunc(want, func(a, b store.Entry) int { return strings.Compare(a.Key, b.Key) })
	return want
}

// listPage lists up to max entries after from as the gateway's listRun
// does, and reports whether more follow (it saw one past a full page).
func listPage(t *testing.T, s store.Store, from string, max int) ([]store.Entry, bool) {
	t.Helper()
	var page []store.Entry
	for e, err := range store.ListInfo(context.Background(), s, "", from) {
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == max {
			return page, true
		}
		page = append(page, e)
	}
	return page, false
}

// callCounts reads how many calls of each op the "counted" store of
// config has seen in the plugin.
func callCounts(t *testing.T, p *launcher.Plugin, config json.RawMessage, ops ...string) map[string]int64 {
	t.Helper()
	c, err := p.Store(context.Background(), "callcount", config)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, op := range ops {
		v, err := c.Get(context.Background(), op, store.ByteRange{})
		if err != nil {
			t.Fatal(err)
		}
		if out[op], err = strconv.ParseInt(string(v.Data), 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
