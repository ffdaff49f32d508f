package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/zarrgw/zarrgw/core/codec"
	"github.com/zarrgw/zarrgw/core/extension"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// crowd is an identity bytes->bytes codec whose process dies, once, with
// a crowd of decodes in flight: each decode waits until
// $ZARRGW_TEST_CROWD decodes are in flight together, and the one that
// makes them that many writes the plugin's PID to "crowded" in
// $ZARRGW_TEST_DIR and exits the process, with every one of them still
// unanswered. While "crowded" exists (in the process that replaces the
// dead one) decodes are plain identities. A crowd that never gathers
// fails its decodes after crowdPatience, so that a host sending fewer
// calls at once fails its test instead of hanging it.
type crowd struct{ gate }

func (crowd) Name() string { return "test.crowd" }

const crowdPatience = 2 * time.Minute

var (
	crowdMu       sync.Mutex
	crowdInFlight int
	crowdGathered = make(chan struct{})
)

func (crowd) DecodeBytes(ctx context.Context, _ codec.Spec, b []byte) ([]byte, error) {
	marker := filepath.Join(os.Getenv("ZARRGW_TEST_DIR"), "crowded")
	if _, err := os.Stat(marker); err == nil {
		return append([]byte(nil), b...), nil
	}
	want, err := strconv.Atoi(os.Getenv("ZARRGW_TEST_CROWD"))
	if err != nil || want < 1 {
		return nil, fmt.Errorf("test.crowd: ZARRGW_TEST_CROWD=%q is not a count", os.Getenv("ZARRGW_TEST_CROWD"))
	}
	crowdMu.Lock()
	crowdInFlight++
	if crowdInFlight == want {
		// O_EXCL: one death per marker, whatever else is in flight.
		f, err := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d %d\n", os.Getpid(), crowdInFlight)
			f.Close()
			os.Exit(3) // with the lock held: no decode of this crowd answers
		}
		crowdMu.Unlock()
		return nil, fmt.Errorf("test.crowd: marker: %w", err)
	}
	crowdMu.Unlock()
	var gaveUp error
	select {
	case <-crowdGathered: // never closed: the process exits first
	case <-ctx.Done():
		gaveUp = ctx.Err()
	case <-time.After(crowdPatience):
	}
	crowdMu.Lock()
	n := crowdInFlight
	crowdInFlight--
	crowdMu.Unlock()
	if gaveUp != nil {
		return nil, gaveUp
	}
	return nil, errors.New("test.crowd: only " + strconv.Itoa(n) + " decodes came in flight together, want " + strconv.Itoa(want))
}

func serveCrowd() {
	pluginapi.ServeCodec(codec.Registration{
		Manifest: extension.Manifest{Kind: extension.Codec, Name: "test.crowd"},
		New:      func(context.Context, json.RawMessage, codec.Resolver) (codec.Codec, error) { return crowd{}, nil },
	})
}
