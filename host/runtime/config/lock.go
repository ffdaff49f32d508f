package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/host/runtime/config/lockfile"
)

// The lock file is read and written by package lockfile; these are its
// names as the configuration's users have always called them.
type (
	// Lock pins plugin binaries to checksums (lockfile.Lock).
	Lock = lockfile.Lock
	// LockedPlugin is one entry of a lock file (lockfile.Entry).
	LockedPlugin = lockfile.Entry
	// Served lists the names of the extensions a plugin serves, by kind.
	Served = lockfile.Served
)

// LockFileName is the lock file of a configuration file named zarrgw.hcl
// (lockfile.FileName).
const LockFileName = lockfile.FileName

// LockPathFor is the lock file of the configuration file at path
// (lockfile.PathFor).
func LockPathFor(path string) string { return lockfile.PathFor(path) }

// LockSourceFor is the lock file a configuration at path reads
// (lockfile.SourceFor).
func LockSourceFor(path string) string { return lockfile.SourceFor(path) }

// LoadLock reads a lock file; a missing file is an empty lock.
func LoadLock(path string) (*Lock, hcl.Diagnostics) { return lockfile.Load(path) }

// ParseLock decodes a lock file held in memory.
func ParseLock(src []byte, filename string) (*Lock, hcl.Diagnostics) {
	return lockfile.Parse(src, filename)
}

// WriteLock writes l to path in canonical form, atomically (lockfile.Write).
func WriteLock(path string, l *Lock) error { return lockfile.Write(path, l) }

// ServedBy lists the names of manifests, sorted, by kind.
func ServedBy(ms []extension.Manifest) Served { return lockfile.ServedBy(ms) }
