package pluginapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/store"
)

// Every sentinel survives the trip through a gRPC status, wrapped as deep
// as it was, and the message names the plugin.
func TestSentinelsCrossTheBoundary(t *testing.T) {
	for _, s := range sentinels {
		err := fmt.Errorf("fs: get %q: %w", "a/b", fmt.Errorf("layer: %w", s.err))
		back := fromStatus(context.Background(), "example.org/p", toStatus(err))
		if !errors.Is(back, s.err) {
			t.Errorf("%v lost on the way back: %v", s.err, back)
		}
		if !strings.Contains(back.Error(), "example.org/p") || !strings.Contains(back.Error(), `"a/b"`) {
			t.Errorf("message %q lacks the plugin or the original message", back)
		}
		for _, other := range sentinels {
			if other.err != s.err && errors.Is(back, other.err) {
				t.Errorf("%v also matches %v", s.err, other.err)
			}
		}
	}
	plain := fromStatus(context.Background(), "p", toStatus(errors.New("disk on fire")))
	for _, s := range sentinels {
		if errors.Is(plain, s.err) {
			t.Errorf("a plain error matches %v", s.err)
		}
	}
}

// Configuration errors keep their field paths; context errors become the
// caller's. (A lost connection: lost_test.go.)
func TestErrorKinds(t *testing.T) {
	ce := &ConfigError{Fields: []FieldError{{Path: "/level", Message: "must be at most 9"}}}
	back := fromStatus(context.Background(), "p", toStatus(fmt.Errorf("codec x: %w", ce)))
	var got *ConfigError
	if !errors.As(back, &got) || len(got.Fields) != 1 || got.Fields[0].Path != "/level" || !errors.Is(back, ErrInvalidConfig) {
		t.Fatalf("config error came back as %v", back)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := fromStatus(ctx, "p", status.Error(codes.Canceled, "x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancellation: %v", err)
	}
	bad := toStatus(fmt.Errorf("key \xff: %w", store.ErrInvalidKey))
	if err := fromStatus(context.Background(), "p", bad); !errors.Is(err, store.ErrInvalidKey) {
		t.Errorf("a message that is not UTF-8 lost its kind: %v", err)
	}
	if err := errorFromPB(errorToPB(fmt.Errorf("x: %w", codec.ErrCorrupt))); !errors.Is(err, codec.ErrCorrupt) {
		t.Errorf("batch item error: %v", err)
	}
}

// A plugin can end a call at the caller's deadline before the caller's own
// context timer has run: that is still the caller's deadline, while a
// cancellation well before the deadline stays the plugin's error.
func TestPluginEndsCallAtCallersDeadline(t *testing.T) {
	soon, cancel := context.WithTimeout(context.Background(), deadlineSlack/2)
	defer cancel()
	if err := fromStatus(soon, "p", status.Error(codes.Canceled, "stream terminated by RST_STREAM")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline all but passed: %v", err)
	}
	later, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := fromStatus(later, "p", status.Error(codes.Canceled, "stream terminated by RST_STREAM")); errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline an hour away: %v", err)
	}
}
