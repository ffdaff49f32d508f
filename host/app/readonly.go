package app

import (
	"errors"
	"fmt"

	"github.com/zarrgw/zarrgw/core/store"
	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/runtime/config"
)

// ReadOnly refuses a write to a read-only dataset, naming it and the line
// that makes it so, before anything is written.
func ReadOnly(t *location.Target) error {
	if t.Dataset == nil || !t.Dataset.ReadOnly {
		return nil
	}
	return fmt.Errorf("dataset %q is read-only (%s: read_only = true): nothing written", t.Dataset.Name, config.At(t.Dataset.ReadOnlyRange))
}

// WriteError names the dataset a write was refused by, when it is
// read-only below a transformer that hid the first refusal.
func WriteError(t *location.Target, err error) error {
	if err != nil && errors.Is(err, store.ErrUnsupported) {
		if ro := ReadOnly(t); ro != nil {
			return fmt.Errorf("%w (%w)", ro, err)
		}
	}
	return err
}
