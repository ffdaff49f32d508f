package s3wire

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// An error document carries S3's own text for codes S3 answers with one
// (clients compare it), the error's own text otherwise, and the extra
// elements in order; a HEAD answer carries the code in a header only.
func TestWriteError(t *testing.T) {
	for _, c := range []struct {
		err        *Error
		want, miss string
	}{
		{Errorf(NoSuchBucket, "the bucket b does not exist"),
			"<Code>NoSuchBucket</Code><Message>The specified bucket does not exist.</Message>", "the bucket b"},
		{Errorf(InvalidArgument, "max-keys must be a whole number"),
			"<Message>max-keys must be a whole number</Message>", ""},
		{Errorf(MethodNotAllowed, "PATCH on an object").With("Method", "PATCH").With("ResourceType", "OBJECT"),
			"<Message>The specified method is not allowed against this resource.</Message><Method>PATCH</Method><ResourceType>OBJECT</ResourceType>", "PATCH on"},
	} {
		w := httptest.NewRecorder()
		WriteError(w, httptest.NewRequest("GET", "/b/k", nil), c.err, "/b/k", "ID")
		body := w.Body.String()
		if w.Code != c.err.Status || !strings.Contains(body, c.want) || c.miss != "" && strings.Contains(body, c.miss) {
			t.Errorf("%v: %d %s", c.err, w.Code, body)
		}
	}
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("HEAD", "/b/k", nil), Errorf(NoSuchKey, "k"), "/b/k", "ID")
	if w.Code != 404 || w.Body.Len() != 0 || w.Header().Get("X-Amz-Error-Code") != NoSuchKey {
		t.Errorf("HEAD: %d %q %v", w.Code, w.Body, w.Header())
	}
}
