package httpstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"

	"github.com/zarrgw/zarrgw/core/checked"
	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/byterange"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/redact"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/remote"
	"github.com/zarrgw/zarrgw/plugins/stores/internal/retry"
)

// statusError is an answer the store has no other use for.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.url, e.status, nethttp.StatusText(e.status))
}

func transient(err error) bool {
	if errors.Is(err, store.ErrAddressRefused) {
		return false // the same name reaches the same refused address
	}
	var se *statusError
	if errors.As(err, &se) {
		return retry.Status(se.status)
	}
	return retry.Network(err)
}

// send makes one request for key and hands a response with a status
// other than 404, 401, 403 and the unexpected ones to use; it retries the
// request and use together.
func (s *Store) send(ctx context.Context, method, key, rangeHeader string, use func(*nethttp.Response) error) error {
	u := s.url(key)
	err := s.policy.Do(ctx, transient, func(ctx context.Context) error {
		req, err := nethttp.NewRequestWithContext(ctx, method, u.String(), nil)
		if err != nil {
			return err
		}
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		if s.token != "" {
			req.Header.Set("Authorization", "Bearer "+s.token)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			return redact.Error(err)
		}
		defer resp.Body.Close()
		switch resp.StatusCode {
		case nethttp.StatusOK, nethttp.StatusPartialContent, nethttp.StatusRequestedRangeNotSatisfiable:
			return use(resp)
		case nethttp.StatusNotFound:
			return store.ErrNotFound
		}
		return &statusError{redact.URL(u), resp.StatusCode}
	})
	return s.wrap(method, key, err)
}

// wrap names the store and key; 401 and 403 become ErrAccessDenied.
func (s *Store) wrap(method, key string, err error) error {
	var se *statusError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%s: %s %q: %w", s.name, method, key, store.ErrNotFound)
	case errors.As(err, &se) && (se.status == 401 || se.status == 403):
		return fmt.Errorf("%s: %s %q: %w: %w", s.name, method, key, store.ErrAccessDenied, err)
	}
	return fmt.Errorf("%s: %s %q: %w", s.name, method, key, err)
}

// Get reads the value or the part r selects.
func (s *Store) Get(ctx context.Context, key string, r store.ByteRange) (store.Value, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Value{}, fmt.Errorf("%s: get: %w", s.name, err)
	}
	req, err := byterange.For(r)
	if err != nil {
		return store.Value{}, fmt.Errorf("%s: get %q: %w", s.name, key, err)
	}
	if req.Empty {
		return remote.EmptyPart(ctx, s, key)
	}
	var v store.Value
	err = s.send(ctx, nethttp.MethodGet, key, req.Header, func(resp *nethttp.Response) error {
		var rerr error
		v, rerr = readPart(resp, r)
		return rerr
	})
	return v, err
}

// readPart takes the range r out of a 200, 206 or 416 answer.
func readPart(resp *nethttp.Response, r store.ByteRange) (store.Value, error) {
	v := store.Value{Version: resp.Header.Get("ETag")}
	if t, err := nethttp.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		v.ModTime = t
	}
	switch resp.StatusCode {
	case nethttp.StatusRequestedRangeNotSatisfiable:
		// Nothing of the value is in the range; the value exists.
		v.Data = []byte{}
		return v, nil
	case nethttp.StatusPartialContent:
		cr, err := byterange.ParseContentRange(resp.Header.Get("Content-Range"))
		if err == nil {
			err = byterange.Check(r, cr)
		}
		if err != nil {
			return store.Value{}, err
		}
		v.Data, err = remote.ReadBody(resp.Body, cr.End-cr.Start)
		return v, err
	}
	// 200: the server ignored the range and sent the whole value. Of a
	// bounded range only the bytes up to its end are read: a value of any
	// size costs no more than the range asked for.
	body, length := io.Reader(resp.Body), resp.ContentLength
	if end, ok := rangeEnd(r); ok {
		body = io.LimitReader(resp.Body, end)
		if length > end {
			length = end
		}
	}
	head, err := remote.ReadBody(body, length)
	if err != nil {
		return store.Value{}, err
	}
	v.Data, err = store.SliceRange(head, r)
	return v, err
}

// rangeEnd is where a bounded range ends, and false for other ranges
// (they reach the end of the value).
func rangeEnd(r store.ByteRange) (int64, bool) {
	if r.Kind != store.Bounded {
		return 0, false
	}
	return checked.Add(r.Offset, r.Length)
}

// GetInto reads the whole value into dst when its size is len(dst).
func (s *Store) GetInto(ctx context.Context, key string, dst []byte) (bool, error) {
	if err := store.ValidateKey(key); err != nil {
		return false, fmt.Errorf("%s: get: %w", s.name, err)
	}
	fits := false
	err := s.send(ctx, nethttp.MethodGet, key, "", func(resp *nethttp.Response) error {
		if resp.StatusCode != nethttp.StatusOK {
			return fmt.Errorf("status %d to a request without a range", resp.StatusCode)
		}
		if resp.ContentLength >= 0 {
			var err error
			fits, err = remote.ReadInto(resp.Body, resp.ContentLength, dst)
			return err
		}
		data, err := io.ReadAll(resp.Body)
		if fits = err == nil && len(data) == len(dst); fits {
			copy(dst, data)
		}
		return err
	})
	return fits && err == nil, err
}

// Stat returns the size (Content-Length) and ETag of a value (HEAD).
func (s *Store) Stat(ctx context.Context, key string) (store.Info, error) {
	if err := store.ValidateKey(key); err != nil {
		return store.Info{}, fmt.Errorf("%s: stat: %w", s.name, err)
	}
	var info store.Info
	err := s.send(ctx, nethttp.MethodHead, key, "", func(resp *nethttp.Response) error {
		if resp.StatusCode != nethttp.StatusOK || resp.ContentLength < 0 {
			return fmt.Errorf("HEAD answered %d without a size", resp.StatusCode)
		}
		info = store.Info{Size: resp.ContentLength, Version: resp.Header.Get("ETag")}
		if t, err := nethttp.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			info.ModTime = t
		}
		return nil
	})
	return info, err
}
