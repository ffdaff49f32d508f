// Package journal records what a copy (zarrgw cp) completed, in a file
// that survives the process, so that a run with the same arguments goes
// on from there; one process holds a journal at a time.
package journal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Journal records what a copy completed, in a file that survives the
// process: one line per key copied or chunk rewritten, handed to the
// operating system as soon as it is complete, so that a process killed
// at any moment redoes only what it had in flight. A run with the same
// arguments reads it back and skips those. A finished copy removes it.
type Journal struct {
	path string

	mu   sync.Mutex
	f    *os.File
	done map[string]string // entry -> detail (size for keys)
}

// Open opens (or creates) the journal of the copy identified by id
// in dir, reading what an earlier run recorded. One process holds a
// journal at a time, by a lock the kernel ends with the process: a second
// run of the same copy at once (a partition started twice on one
// machine) calls waiting and waits until the first ends, or ctx does. It
// then goes on from what the first recorded, even when the first
// finished and removed the journal: the first's work is not done again.
func Open(ctx context.Context, dir, id string, waiting func(path string)) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	path := filepath.Join(dir, id+".journal")
	carried := map[string]string{} // what runs that ended while we waited recorded
	told := false
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		locked, err := tryLock(f)
		for err == nil && !locked {
			if !told && waiting != nil {
				waiting(path)
				told = true
			}
			select {
			case <-ctx.Done():
				err = ctx.Err()
			case <-time.After(lockPoll):
				locked, err = tryLock(f)
			}
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		if !isAt(f, path) {
			// the run waited for finished and removed its journal (or
			// another has made a new one since): keep what it recorded,
			// and take the journal at path
			err = readEntries(f, carried)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("journal %s: %w", path, err)
			}
			continue
		}
		j := &Journal{path: path, f: f, done: map[string]string{}}
		if err := readEntries(f, j.done); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: %w", path, err)
		}
		for entry, detail := range carried {
			if _, ok := j.done[entry]; !ok {
				if err := j.Record(entry, detail); err != nil {
					f.Close()
					return nil, err
				}
			}
		}
		return j, nil
	}
}

// lockPoll is how often a run waiting for a journal tries its lock
// again: polled rather than blocked on, so that Ctrl-C ends the wait.
const lockPoll = 200 * time.Millisecond

// isAt reports whether f is still the file at path.
func isAt(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	at, err := os.Stat(path)
	return err == nil && os.SameFile(fi, at)
}

// readEntries adds the entries recorded in f to done; a last line cut
// short by a crash is ignored.
func readEntries(f *os.File, done map[string]string) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, info.Size()))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		entry, detail, ok := strings.Cut(line, "\t")
		if ok && strings.HasSuffix(detail, "\t.") {
			done[entry] = strings.TrimSuffix(detail, "\t.")
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

// Count is the number of entries that begin with prefix.
func (j *Journal) Count(prefix string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for entry := range j.done {
		if strings.HasPrefix(entry, prefix) {
			n++
		}
	}
	return n
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
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := removeHeld(j.path, j.f)
	j.f = nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// forget empties the journal, which this run holds.
func (j *Journal) forget() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.done = map[string]string{}
	return nil
}

// Dir is where copies keep their journals: zarrgw/cp in the user's
// cache directory ($XDG_CACHE_HOME, else ~/.cache), else in the system's
// temporary directory. A resume is thus per user and machine.
func Dir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "zarrgw", "cp")
}

// Resume opens, in Dir, the journal of the copy that id names (see
// transfer.CopyID), with what an interrupted run of it completed; fresh
// forgets that, and the copy starts over. A run of the same copy holding
// the journal is waited for (see Open).
func Resume(ctx context.Context, id string, fresh bool, waiting func(path string)) (*Journal, error) {
	j, err := Open(ctx, Dir(), id, waiting)
	if err != nil || !fresh {
		return j, err
	}
	if err := j.forget(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}
