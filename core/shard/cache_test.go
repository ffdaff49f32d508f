package shard

import "testing"

func TestCache(t *testing.T) {
	ix := NewIndex([]int{4}) // cost 64+64+len(key,version)
	c := NewCache(3 * 140)
	c.Put("a", "1", ix)
	c.Put("b", "1", ix)
	if _, ok := c.Get("a", "2"); ok {
		t.Fatal("another version of a was found")
	}
	c.Put("a", "2", ix)
	if _, v, ok := c.Latest("a"); !ok || v != "2" {
		t.Fatalf("Latest(a) = %q %v", v, ok)
	}
	c.Put("c", "1", ix) // evicts a@1, the least recently used
	if _, ok := c.Get("a", "1"); ok {
		t.Fatal("a@1 was not evicted")
	}
	if _, ok := c.Get("b", "1"); !ok {
		t.Fatal("b@1 was evicted")
	}
	c.Forget("a")
	if _, _, ok := c.Latest("a"); ok {
		t.Fatal("Latest(a) after Forget")
	}
	c.Put("d", "", ix)
	if _, _, ok := c.Latest("d"); ok {
		t.Fatal("an index without a version was cached")
	}
	if c.Len() > 3 {
		t.Fatalf("cache holds %d indexes", c.Len())
	}
	var nilCache *Cache
	nilCache.Put("a", "1", ix)
	if _, ok := nilCache.Get("a", "1"); ok {
		t.Fatal("nil cache found something")
	}
}
