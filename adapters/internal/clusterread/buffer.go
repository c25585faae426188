package clusterread

import (
	"bufio"
	"io"
	"net/http"

	"k8s.io/client-go/rest"
)

// watchBuffer is how much of a watch's body one read takes.
const watchBuffer = 256 << 10

// BufferWatches is cfg with the body of every watch it answers (a
// streaming list is one) read through a buffer of 256 KiB: a decoder
// reads the body an object or a few kilobytes at a time, and over
// HTTP/2 every read of 4 KiB or more writes and flushes two window
// updates (the connection's and the stream's) under the connection's
// write lock. A read into the buffer takes all the server has sent so
// far, and the updates are written a few times a window. cfg is not
// changed.
func BufferWatches(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	wrap := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if wrap != nil {
			rt = wrap(rt)
		}
		return bufferedWatches{rt}
	}
	return cfg
}

type bufferedWatches struct{ http.RoundTripper }

// WrappedRoundTripper is the transport under it (net.RoundTripperWrapper),
// for client-go's look through its wrappers.
func (b bufferedWatches) WrappedRoundTripper() http.RoundTripper { return b.RoundTripper }

func (b bufferedWatches) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.RoundTripper.RoundTrip(req)
	if err != nil || resp.Body == nil || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	resp.Body = bufferedBody{bufio.NewReaderSize(resp.Body, watchBuffer), resp.Body}
	return resp, nil
}

// bufferedBody reads a body through its buffer and closes the body.
type bufferedBody struct {
	*bufio.Reader
	io.Closer
}
