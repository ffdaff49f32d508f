package gateway

import (
	"io"
	"net/http"
)

// requestBody counts the bytes of a request body as they are read: the
// metrics and the access log report what arrived, not what a refused
// request's Content-Length declared.
type requestBody struct {
	io.ReadCloser
	n int64
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}

// begin starts a request on either API: the 100 Continue an empty body
// needs, the recording response, the counted body and the log record.
func begin(w http.ResponseWriter, r *http.Request) (*response, *requestInfo) {
	continueEmptyBody(w, r)
	info := &requestInfo{}
	if r.Body != nil && r.Body != http.NoBody {
		info.body = &requestBody{ReadCloser: r.Body}
		r.Body = info.body
	}
	return &response{ResponseWriter: w, status: http.StatusOK}, info
}

// bytesIn is how many body bytes the request's handler read.
func (info *requestInfo) bytesIn() int64 {
	if info.body == nil {
		return 0
	}
	return info.body.n
}
