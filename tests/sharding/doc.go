// Package sharding tests sharded arrays end to end: the sharding_indexed
// codec and the sharding storage transformer through the array API, on
// the memory and filesystem stores, with request counting, concurrent and
// multi-process writers, corrupted shards, and zarrita.js reading what
// zarrgw wrote.
package sharding
