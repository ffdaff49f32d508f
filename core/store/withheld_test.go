package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zarrgw/zarrgw/core/store"
)

// PublicText replaces each withheld detail with its public text, keeping
// the words of the errors around it and of errors joined beside it;
// errors.Is still sees through a withheld error.
func TestPublicTextWithholdsDetail(t *testing.T) {
	inner := fmt.Errorf("target /etc/shadow: %w", store.ErrAccessDenied)
	w := store.Withhold(`key "a/0": its target could not be read`, fmt.Errorf(`key "a/0": %w`, inner))
	wrapped := fmt.Errorf("array a: chunk 0: %w", w)
	joined := errors.Join(wrapped, errors.New("second failure"),
		store.Withhold("other", errors.New("target http://10.0.0.1/")))
	for err, want := range map[error]string{
		w:       `key "a/0": its target could not be read`,
		wrapped: `array a: chunk 0: key "a/0": its target could not be read`,
		joined:  "array a: chunk 0: key \"a/0\": its target could not be read\nsecond failure\nother",
		inner:   "target /etc/shadow: access denied",
	} {
		if got := store.PublicText(err); got != want {
			t.Errorf("PublicText(%q) = %q, want %q", err, got, want)
		}
	}
	if !errors.Is(wrapped, store.ErrAccessDenied) || !strings.Contains(wrapped.Error(), "/etc/shadow") {
		t.Errorf("the withheld error hides its cause from the operator: %v", wrapped)
	}
}
