package pluginsource

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/go-version"

	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// NetMirror is a server speaking Terraform's provider network mirror
// protocol below a base URL.
type NetMirror struct {
	base   *url.URL
	client *http.Client
}

// NewNetMirror returns the mirror at base, which must be an https URL, or
// for mirrors on this machine (tests, a local cache) an http URL of a
// loopback host. A trailing slash is added when it is missing.
func NewNetMirror(base string, client *http.Client) (*NetMirror, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("network mirror %q: %w", base, err)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
		return nil, fmt.Errorf("network mirror %q: the URL must use https (http only for a loopback host)", base)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	return &NetMirror{base: u, client: client}, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (m *NetMirror) String() string { return "network mirror " + m.base.String() }

// ref resolves a path relative to the base URL.
func (m *NetMirror) ref(path string) *url.URL {
	return m.base.ResolveReference(&url.URL{Path: path})
}

// getJSON fetches a protocol document into v; found is false on 404.
func (m *NetMirror) getJSON(ctx context.Context, u *url.URL, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode != http.StatusOK:
		return false, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(v); err != nil {
		return false, fmt.Errorf("GET %s: not a mirror document: %w", u, err)
	}
	return true, nil
}

func (m *NetMirror) Versions(ctx context.Context, a pluginpkg.Address) ([]*version.Version, error) {
	var idx VersionIndex
	found, err := m.getJSON(ctx, m.ref(a.Path()+"/index.json"), &idx)
	if err != nil || !found {
		return nil, err
	}
	var out []*version.Version
	for s := range idx.Versions {
		v, err := version.NewVersion(s)
		if err != nil {
			return nil, fmt.Errorf("%s/index.json: version %q: %w", a, s, err)
		}
		out = append(out, v)
	}
	return newestFirst(out), nil
}

func (m *NetMirror) Package(ctx context.Context, a pluginpkg.Address, v *version.Version, p pluginpkg.Platform) (Package, error) {
	u := m.ref(a.Path() + "/" + v.String() + ".json")
	var idx PackageIndex
	found, err := m.getJSON(ctx, u, &idx)
	if err != nil {
		return Package{}, err
	}
	archive, ok := idx.Archives[p.String()]
	if !found || !ok {
		return Package{}, fmt.Errorf("%s %s (%s): %w", a, v, p, ErrNotFound)
	}
	zipURL, err := u.Parse(archive.URL) // relative to the document, as the protocol says
	if err != nil {
		return Package{}, fmt.Errorf("%s: archive %s: %w", u, p, err)
	}
	pkg := Package{Address: a, Version: v, Platform: p, Source: m.String(), URL: zipURL.String(), Hashes: archive.Hashes}
	pkg.Download = func(ctx context.Context, dst io.Writer) error { return m.download(ctx, pkg.URL, dst) }
	return pkg, nil
}

// maxPackage bounds a download.
const maxPackage = 1 << 30

// download fetches a package's zip into dst.
func (m *NetMirror) download(ctx context.Context, rawURL string, dst io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", rawURL, resp.Status)
	}
	n, err := io.Copy(dst, io.LimitReader(resp.Body, maxPackage+1))
	if err == nil && n > maxPackage {
		err = fmt.Errorf("GET %s: larger than 1 GiB", rawURL)
	}
	return err
}
