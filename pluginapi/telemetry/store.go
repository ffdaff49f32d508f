package telemetry

import (
	"context"
	"errors"
	"io"
	"iter"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/zarrgw/zarrgw/core/store"
)

// Attributes of store spans. Keys and prefixes are recorded as they are:
// they name chunks and metadata documents, never secrets.
const (
	AttrStoreLayer      = "zarrgw.store.layer"       // the store type or transformer ("fs", "sharding")
	AttrStoreKey        = "zarrgw.store.key"         // the key of a Get, Stat, Set or Erase (an EraseMany's first)
	AttrStorePrefix     = "zarrgw.store.prefix"      // the prefix of a listing or ErasePrefix
	AttrStoreStartAfter = "zarrgw.store.start_after" // where a sorted listing starts
	AttrStoreRange      = "zarrgw.store.range"       // the byte range of a GetRange ("bytes=0-99")
	AttrStoreBytes      = "zarrgw.store.bytes"       // bytes read or written
	AttrStoreSize       = "zarrgw.store.size"        // the size a Stat reports
	AttrStoreFound      = "zarrgw.store.found"       // false: the key does not exist (not an error)
	AttrStoreConflict   = "zarrgw.store.conflict"    // true: a conditional Set found another version (not an error)
	AttrStoreCondition  = "zarrgw.store.condition"   // "if-match" or "if-none-match" on a conditional Set
	AttrStoreKeys       = "zarrgw.store.keys"        // keys a listing yielded, or an EraseMany erases
	AttrStorePrefixes   = "zarrgw.store.prefixes"    // child prefixes a ListDir returned
)

// Store returns next with a span around each of its calls, a child of the
// span in the call's context: "store.Get" (a whole value, and GetInto as
// "store.GetInto"), "store.GetRange" (a Get with a byte range),
// "store.Stat", "store.Set", "store.Erase", "store.EraseMany", "store.ErasePrefix",
// "store.List", "store.ListSorted", "store.ListInfo" and "store.ListDir",
// and for a store of files "store.OpenFile" and "store.SetFrom" (a
// stream's span lasts as long as its reader takes to deliver).
// layer names the part of the stack (the store type, or the
// transformer), so a request shows its transformers' calls and their
// stores' nested. A missing key and a refused condition are answers, not
// failures: they are attributes, and only other errors mark the span
// failed. A listing's span lasts while it is iterated.
//
// The wrapper has the optional operations of next (store.Optional) and
// only those: it keeps the bytes of its store, so a store of files stays
// one (uploads stream into it, values go out by sendfile). Callers wrap only when Enabled: it costs a span per call.
func Store(next store.Store, layer string) store.Store {
	return &tracedStore{next: next, tracer: tracer(), layer: attribute.String(AttrStoreLayer, layer)}
}

type tracedStore struct {
	next   store.Store
	tracer trace.Tracer
	layer  attribute.KeyValue
}

func (s *tracedStore) start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return s.tracer.Start(ctx, name, trace.WithAttributes(attrs...), trace.WithAttributes(s.layer))
}

// end records err on span and ends it.
func end(span trace.Span, err error) {
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNotFound):
		span.SetAttributes(attribute.Bool(AttrStoreFound, false))
	case errors.Is(err, store.ErrConflict):
		span.SetAttributes(attribute.Bool(AttrStoreConflict, true))
	default:
		errorStatus(span, err)
	}
	span.End()
}

func (s *tracedStore) Capabilities() store.Capabilities { return s.next.Capabilities() }
func (s *tracedStore) Close() error                     { return s.next.Close() }

func (s *tracedStore) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	name, attrs := "store.Get", []attribute.KeyValue{attribute.String(AttrStoreKey, key)}
	if r.Kind != store.Whole {
		name, attrs = "store.GetRange", append(attrs, attribute.String(AttrStoreRange, r.String()))
	}
	ctx, span := s.start(ctx, name, attrs...)
	v, err := s.next.Get(ctx, key, r)
	if err == nil {
		span.SetAttributes(attribute.Int(AttrStoreBytes, len(v.Data)))
	}
	end(span, err)
	return v, err
}

// GetInto keeps the copy-free read of the store below (shown only where
// it has one).
func (s *tracedStore) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	ctx, span := s.start(ctx, "store.GetInto", attribute.String(AttrStoreKey, key))
	ok, err := store.GetInto(ctx, s.next, key, dst)
	if ok {
		span.SetAttributes(attribute.Int(AttrStoreBytes, len(dst)))
	}
	end(span, err)
	return ok, err
}

// OpenFile keeps the files of the store below: its span ends once the
// file is open (the bytes are sent after), recording the value's size.
func (s *tracedStore) OpenFile(ctx context.Context, key string, buf []byte) (*os.File, store.Info, error) {
	ctx, span := s.start(ctx, "store.OpenFile", attribute.String(AttrStoreKey, key))
	f, info, err := store.OpenFile(ctx, s.next, key, buf)
	if err == nil {
		span.SetAttributes(attribute.Int64(AttrStoreSize, info.Size))
	}
	end(span, err)
	return f, info, err
}

// SetFrom keeps the streamed writes of the store below, recording the
// bytes the stream delivered.
func (s *tracedStore) SetFrom(ctx context.Context, key string, r io.Reader, cond store.Condition) (string, error) {
	ctx, span := s.start(ctx, "store.SetFrom", append(conditionAttrs(cond), attribute.String(AttrStoreKey, key))...)
	counted := &store.CountingReader{R: r}
	version, err := store.SetFrom(ctx, s.next, key, counted, cond)
	span.SetAttributes(attribute.Int64(AttrStoreBytes, counted.N))
	end(span, err)
	return version, err
}

func (s *tracedStore) Stat(ctx context.Context, key string) (store.Info, error) {
	ctx, span := s.start(ctx, "store.Stat", attribute.String(AttrStoreKey, key))
	info, err := s.next.Stat(ctx, key)
	if err == nil {
		span.SetAttributes(attribute.Int64(AttrStoreSize, info.Size))
	}
	end(span, err)
	return info, err
}

func (s *tracedStore) Set(ctx context.Context, key string, data []byte, cond store.Condition) (string, error) {
	attrs := append(conditionAttrs(cond), attribute.String(AttrStoreKey, key), attribute.Int(AttrStoreBytes, len(data)))
	ctx, span := s.start(ctx, "store.Set", attrs...)
	version, err := s.next.Set(ctx, key, data, cond)
	end(span, err)
	return version, err
}

// conditionAttrs names a write's condition, if it has one.
func conditionAttrs(cond store.Condition) []attribute.KeyValue {
	switch {
	case cond.IfMatch != "":
		return []attribute.KeyValue{attribute.String(AttrStoreCondition, "if-match")}
	case cond.IfNoneMatch:
		return []attribute.KeyValue{attribute.String(AttrStoreCondition, "if-none-match")}
	}
	return nil
}

func (s *tracedStore) Erase(ctx context.Context, key string) error {
	ctx, span := s.start(ctx, "store.Erase", attribute.String(AttrStoreKey, key))
	err := s.next.Erase(ctx, key)
	end(span, err)
	return err
}

func (s *tracedStore) EraseMany(ctx context.Context, keys []string) error {
	attrs := []attribute.KeyValue{attribute.Int(AttrStoreKeys, len(keys))}
	if len(keys) > 0 {
		attrs = append(attrs, attribute.String(AttrStoreKey, keys[0]))
	}
	ctx, span := s.start(ctx, "store.EraseMany", attrs...)
	err := s.next.EraseMany(ctx, keys)
	end(span, err)
	return err
}

func (s *tracedStore) ErasePrefix(ctx context.Context, prefix string) error {
	ctx, span := s.start(ctx, "store.ErasePrefix", attribute.String(AttrStorePrefix, prefix))
	err := s.next.ErasePrefix(ctx, prefix)
	end(span, err)
	return err
}

func (s *tracedStore) ListDir(ctx context.Context, prefix string) (store.Dir, error) {
	ctx, span := s.start(ctx, "store.ListDir", attribute.String(AttrStorePrefix, prefix))
	d, err := s.next.ListDir(ctx, prefix)
	if err == nil {
		span.SetAttributes(attribute.Int(AttrStoreKeys, len(d.Keys)), attribute.Int(AttrStorePrefixes, len(d.Prefixes)))
	}
	end(span, err)
	return d, err
}

func (s *tracedStore) List(ctx context.Context, prefix string) iter.Seq2[string, error] {
	return traceSeq(s, ctx, "store.List", func(ctx context.Context) iter.Seq2[string, error] {
		return s.next.List(ctx, prefix)
	}, attribute.String(AttrStorePrefix, prefix))
}

// ListSorted keeps the sorted listing of the store below.
func (s *tracedStore) ListSorted(ctx context.Context, prefix, startAfter string) iter.Seq2[string, error] {
	return traceSeq(s, ctx, "store.ListSorted", func(ctx context.Context) iter.Seq2[string, error] {
		return store.ListSorted(ctx, s.next, prefix, startAfter)
	}, attribute.String(AttrStorePrefix, prefix), attribute.String(AttrStoreStartAfter, startAfter))
}

// ListInfo keeps the listing with sizes and versions of the store below.
func (s *tracedStore) ListInfo(ctx context.Context, prefix, startAfter string) iter.Seq2[store.Entry, error] {
	return traceSeq(s, ctx, "store.ListInfo", func(ctx context.Context) iter.Seq2[store.Entry, error] {
		return store.ListInfo(ctx, s.next, prefix, startAfter)
	}, attribute.String(AttrStorePrefix, prefix), attribute.String(AttrStoreStartAfter, startAfter))
}

// traceSeq runs a listing inside a span that starts when the caller
// starts iterating and ends when the listing ends or the caller stops;
// a listing never iterated makes no span.
func traceSeq[T any](s *tracedStore, ctx context.Context, name string, list func(context.Context) iter.Seq2[T, error], attrs ...attribute.KeyValue) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		ctx, span := s.start(ctx, name, attrs...)
		n := 0
		var err error
		defer func() {
			span.SetAttributes(attribute.Int(AttrStoreKeys, n))
			end(span, err)
		}()
		for v, lerr := range list(ctx) {
			if lerr != nil {
				err = lerr
			} else {
				n++
			}
			if !yield(v, lerr) {
				return
			}
		}
	}
}
