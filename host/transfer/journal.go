package transfer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Journal records what a copy completed, in a file that survives the
// process: one line per key copied or slab rewritten, handed to the
// operating system as soon as it is complete, so that a process killed
// at any moment redoes only what it had in flight. A run with the same
// arguments reads it back and skips those. A finished copy removes it.
type Journal struct {
	path string

	mu   sync.Mutex
	f    *os.File
	done map[string]string // entry -> detail (size for keys)
}

// OpenJournal opens (or creates) the journal of the copy identified by id
// in dir, reading what an earlier run recorded.
func OpenJournal(dir, id string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j := &Journal{path: filepath.Join(dir, id+".journal"), done: map[string]string{}}
	if err := j.load(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	j.f = f
	return j, nil
}

// load reads the entries of an earlier run; a last line cut short by a
// crash is ignored.
func (j *Journal) load() error {
	b, err := os.ReadFile(j.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		entry, detail, ok := strings.Cut(line, "\t")
		if ok && strings.HasSuffix(detail, "\t.") {
			j.done[entry] = strings.TrimSuffix(detail, "\t.")
		}
	}
	return nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Resumed reports how many entries an earlier run left.
func (j *Journal) Resumed() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.done)
}

// Done returns the detail recorded for entry, and whether it is there.
func (j *Journal) Done(entry string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	d, ok := j.done[entry]
	return d, ok
}

// Record notes entry as complete (entries hold no tab or newline: keys
// and node paths never do).
func (j *Journal) Record(entry, detail string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done[entry] = detail
	// one write per line: the line is whole in the file or not there
	if _, err := fmt.Fprintf(j.f, "%s\t%s\t.\n", entry, detail); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// Close closes the journal's file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Finish removes the journal of a copy that completed.
func (j *Journal) Finish() error {
	if err := j.Close(); err != nil {
		return err
	}
	if err := os.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// JournalDir is where copies keep their journals: zarrgw/cp in the user's
// cache directory ($XDG_CACHE_HOME, else ~/.cache), else in the system's
// temporary directory. A resume is thus per user and machine.
func JournalDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "zarrgw", "cp")
}

// Resume opens, in JournalDir, the journal of the copy that id names (see
// CopyID), with what an interrupted run of it completed; fresh forgets
// that, and the copy starts over.
func Resume(id string, fresh bool) (*Journal, error) {
	j, err := OpenJournal(JournalDir(), id)
	if err != nil || !fresh {
		return j, err
	}
	if err := j.Finish(); err != nil {
		return nil, err
	}
	return OpenJournal(JournalDir(), id)
}

// CopyID names a copy by everything that decides what it writes: the
// configuration file (when locations are its datasets), both locations
// and the options that shape the output. A second run of the same copy
// finds its journal, and no other copy does. Local paths count by their
// absolute form.
func CopyID(configFile, src, dst string, opts Options) string {
	abs := func(loc string) string {
		if strings.Contains(loc, "://") || configFile != "" {
			return loc
		}
		if a, err := filepath.Abs(loc); err == nil {
			return a
		}
		return loc
	}
	if configFile != "" {
		configFile, _ = filepath.Abs(configFile)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%d\x00%v\x00%v\x00%v\x00%v\x00%d\x00%t\x00%d",
		configFile, abs(src), abs(dst), opts.Path, opts.ToFormat, opts.Codecs, opts.Chunks, opts.Shard, opts.InnerChunks,
		opts.ChunksPerShard, opts.Consolidate, opts.Stream.MemoryBudget)
	return hex.EncodeToString(h.Sum(nil)[:12])
}
