package identity

// MaxBuckets is maxBuckets, for the test that fills the map.
const MaxBuckets = maxBuckets
