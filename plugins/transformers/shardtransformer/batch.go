package shardtransformer

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/store"
)

// Concurrent updates of one shard in this process are merged: the first
// caller becomes the shard's leader and applies every edit queued while it
// works in one read-modify-write, so n writers of one shard cost about one
// shard rewrite per round instead of n.

// job is one queued edit and its outcome.
type job struct {
	ctx  context.Context
	fn   edit
	ver  string
	err  error
	done bool
}

// shardQueue holds the edits waiting for a shard's leader.
type shardQueue struct {
	pending []*job
	waiters []chan struct{}
}

// update applies fn to the shard at key and stores the result,
// conditionally on the version read where the next store allows, retrying
// on conflict. It returns the shard's new version.
func (s *Store) update(ctx context.Context, key string, fn edit) (string, error) {
	j := &job{ctx: ctx, fn: fn}
	wake := make(chan struct{})
	s.qmu.Lock()
	q, busy := s.queues[key]
	if !busy {
		q = &shardQueue{}
		s.queues[key] = q
	}
	q.pending = append(q.pending, j)
	q.waiters = append(q.waiters, wake)
	s.qmu.Unlock()
	if busy {
		<-wake // the leader finished this job
		return j.ver, j.err
	}
	s.lead(ctx, key, q)
	return j.ver, j.err
}

// lead applies queued edits of key until none are left. Its I/O ignores
// the leader's own cancellation: it works for the other callers too.
func (s *Store) lead(ctx context.Context, key string, q *shardQueue) {
	ctx = context.WithoutCancel(ctx)
	for {
		s.qmu.Lock()
		batch, waiters := q.pending, q.waiters
		q.pending, q.waiters = nil, nil
		if len(batch) == 0 {
			delete(s.queues, key)
			s.qmu.Unlock()
			return
		}
		s.qmu.Unlock()
		s.apply(ctx, key, batch)
		for _, w := range waiters {
			close(w)
		}
	}
}

// apply runs one batch of edits as one read-modify-write, retried on
// conflict; every job ends with a version or an error.
func (s *Store) apply(ctx context.Context, key string, batch []*job) {
	conditional := s.next.Capabilities().ConditionalWrite
	for range maxConflictRetries {
		chunks, ver, err := s.readShard(ctx, key)
		if err != nil {
			finish(batch, "", err)
			return
		}
		changed := edits(batch, chunks, ver)
		if len(changed) == 0 {
			finish(batch, ver, nil)
			return
		}
		cond := store.Condition{}
		if conditional {
			cond = store.Condition{IfMatch: ver, IfNoneMatch: ver == ""}
		}
		newVer, err := s.commit(ctx, key, chunks, cond)
		if errors.Is(err, store.ErrConflict) {
			continue // edits run again on what the other writer left
		}
		s.reader.Cache.Forget(key)
		finish(changed, newVer, err)
		finish(batch, ver, nil) // the rest changed nothing
		return
	}
	finish(batch, "", fmt.Errorf("gave up after %d conflicting concurrent updates", maxConflictRetries))
}

// edits runs every unfinished job's edit on chunks, in order, and returns
// the jobs that changed something. A job whose edit fails is finished
// with its error. Once one edit changed the shard, later edits see no
// version: a condition on the version read can no longer hold.
func edits(batch []*job, chunks [][]byte, ver string) []*job {
	var changed []*job
	for _, j := range batch {
		if j.done {
			continue
		}
		if err := j.ctx.Err(); err != nil {
			j.err, j.done = err, true
			continue
		}
		v := ver
		if len(changed) > 0 {
			v = ""
		}
		ok, err := j.fn(chunks, v)
		switch {
		case err != nil:
			j.err, j.done = err, true
		case ok:
			changed = append(changed, j)
		}
	}
	return changed
}

// finish gives every unfinished job the outcome.
func finish(jobs []*job, ver string, err error) {
	for _, j := range jobs {
		if !j.done {
			j.ver, j.err, j.done = ver, err, true
		}
	}
}
