package server

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/core/meta"
	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// Server is the HTTP listener. Zero timeouts mean no limit.
type Server struct {
	Listen            string
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	// DrainDelay is how long, on a shutdown, the gateway keeps serving
	// while /readyz fails and every response closes its connection, before
	// it stops taking connections: time for a load balancer to stop
	// sending. 0 stops taking them at once.
	DrainDelay time.Duration
	// MaxRequestSize bounds request bodies, in bytes.
	MaxRequestSize int64
	// TLSCertFile and TLSKeyFile (absolute) serve HTTPS; both or neither.
	TLSCertFile, TLSKeyFile string
	// CORSOrigins are the origins browsers may read from ("*" for any);
	// none disables CORS headers.
	CORSOrigins []string
	// StoreConcurrency bounds the calls in flight to each store.
	StoreConcurrency int
	// MetadataCache and ChunkCache bound the caches of metadata documents
	// and of decoded chunks, in bytes (0 turns one off); CacheTTL is how
	// long an entry is trusted without asking the store again, which is
	// how long a write by another replica can go unseen.
	MetadataCache, ChunkCache int64
	CacheTTL                  time.Duration
	// S3 is the S3 API listener; nil when the server block has none.
	S3 *S3Listener
	// AnonymousRateLimit bounds the traffic of each client address
	// without credentials; nil = no bound.
	AnonymousRateLimit *access.RateLimit
	// Safeguards bound what clients can make the gateway spend (safeguards.go).
	Safeguards
	// ArrayLimits bound what array metadata may ask of a reader, in the
	// gateway and the CLI alike (arraylimits.go); zero fields: defaults.
	ArrayLimits meta.Limits
}

// DefaultServer returns the server used without a server block; a block
// starts from it. Read and write timeouts stay unlimited because one
// request may stream a large array.
func DefaultServer() Server {
	return Server{
		Listen:            "127.0.0.1:8080",
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ShutdownTimeout:   30 * time.Second,
		MaxRequestSize:    256 << 20,
		CORSOrigins:       []string{"*"},
		StoreConcurrency:  64,
		MetadataCache:     16 << 20,
		ChunkCache:        256 << 20,
		CacheTTL:          2 * time.Second,
		Safeguards:        DefaultSafeguards(),
	}
}

var serverSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "s3"}, {Type: "metrics"}, {Type: "anonymous_rate_limit"}}, Attributes: []hcl.AttributeSchema{
	{Name: "listen", Required: true},
	{Name: "read_header_timeout"}, {Name: "read_timeout"}, {Name: "write_timeout"},
	{Name: "idle_timeout"}, {Name: "shutdown_timeout"}, {Name: "drain_delay"},
	{Name: "max_request_size"},
	{Name: "tls_cert_file"}, {Name: "tls_key_file"},
	{Name: "cors_origins"}, {Name: "store_concurrency"},
	{Name: "metadata_cache"}, {Name: "chunk_cache"}, {Name: "cache_ttl"},
	{Name: "expensive_requests"}, {Name: "expensive_memory"}, {Name: "expensive_wait"},
	{Name: "body_read_timeout"}, {Name: "min_upload_rate"}, {Name: "body_memory"},
	{Name: "max_array_rank"}, {Name: "max_chunk_bytes"}, {Name: "max_shard_chunks"}, {Name: "max_chunk_edges"},
}}

// hostname is a DNS name; IP addresses are checked separately.
var hostname = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)

// Decode decodes the server block, of which there is one at most, into
// s, which holds what a block leaves out (DefaultServer).
func (d *Decoder) Decode(blocks []*hcl.Block, s *Server) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for i, b := range blocks {
		if i > 0 {
			diags = append(diags, hclread.Duplicate("server block", b.DefRange, blocks[0].DefRange))
			continue
		}
		diags = append(diags, d.serverBlock(b, s)...)
	}
	return diags
}

func (d *Decoder) serverBlock(b *hcl.Block, s *Server) hcl.Diagnostics {
	content, diags := b.Body.Content(serverSchema)
	attrs := content.Attributes
	diags = append(diags, d.serverBlocks(content.Blocks, s)...)
	listen, ok, more := d.ev.Attr(attrs, "listen", cty.String)
	diags = append(diags, more...)
	if ok {
		if err := checkListen(listen.AsString()); err != nil {
			diags = append(diags, hclread.ErrorAt(attrs["listen"].Expr.Range(), "Invalid listen address", "%s.", err))
		}
		s.Listen = listen.AsString()
	}
	for name, dst := range map[string]*time.Duration{
		"read_header_timeout": &s.ReadHeaderTimeout, "read_timeout": &s.ReadTimeout, "write_timeout": &s.WriteTimeout,
		"idle_timeout": &s.IdleTimeout, "shutdown_timeout": &s.ShutdownTimeout, "cache_ttl": &s.CacheTTL,
		"drain_delay":       &s.DrainDelay,
		"body_read_timeout": &s.BodyReadTimeout,
	} {
		v, ok, more := d.ev.Attr(attrs, name, cty.String)
		diags = append(diags, more...)
		if !ok {
			continue
		}
		dur, err := time.ParseDuration(v.AsString())
		if err == nil && dur < 0 {
			err = fmt.Errorf("negative")
		}
		if err != nil {
			diags = append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), fmt.Sprintf("Invalid %s", name),
				"%s must be a duration such as \"30s\" or \"2m\" (\"0s\" for no limit), not %q.", name, v.AsString()))
			continue
		}
		*dst = dur
	}
	for name, dst := range map[string]*int64{
		"max_request_size": &s.MaxRequestSize, "metadata_cache": &s.MetadataCache, "chunk_cache": &s.ChunkCache,
	} {
		diags = append(diags, d.sizeAttr(attrs, name, dst, name == "max_request_size")...)
	}
	diags = append(diags, d.tls(attrs, s)...)
	diags = append(diags, d.safeguards(attrs, &s.Safeguards)...)
	diags = append(diags, d.arrayLimits(attrs, &s.ArrayLimits)...)
	if v, ok, more := d.ev.Attr(attrs, "cors_origins", cty.List(cty.String)); ok {
		s.CORSOrigins = hclread.StringList(v)
	} else {
		diags = append(diags, more...)
	}
	if v, ok, more := d.ev.Attr(attrs, "store_concurrency", cty.Number); ok {
		n, acc := v.AsBigFloat().Int64()
		if acc != 0 || n < 1 || n > 1<<16 {
			diags = append(diags, hclread.ErrorAt(attrs["store_concurrency"].Expr.Range(), "Invalid store_concurrency",
				"store_concurrency must be a whole number from 1 to 65536."))
		}
		s.StoreConcurrency = int(n)
	} else {
		diags = append(diags, more...)
	}
	return diags
}

// serverBlocks decodes the server block's s3 and metrics blocks, one of
// each at most.
func (d *Decoder) serverBlocks(blocks hcl.Blocks, s *Server) hcl.Diagnostics {
	var diags hcl.Diagnostics
	first := map[string]*hcl.Block{}
	for _, blk := range blocks {
		if f := first[blk.Type]; f != nil {
			diags = append(diags, hclread.Duplicate(blk.Type+" block", blk.DefRange, f.DefRange))
			continue
		}
		first[blk.Type] = blk
		switch blk.Type {
		case "s3":
			diags = append(diags, d.s3Listener(blk, s)...)
		case "anonymous_rate_limit":
			l, more := d.access.RateLimit(blk, "anonymous_rate_limit", true)
			diags = append(diags, more...)
			s.AnonymousRateLimit = l
		default:
			diags = append(diags, d.metrics(blk, &s.Safeguards)...)
		}
	}
	return diags
}

// sizeAttr decodes a size attribute; zero is allowed unless positive.
func (d *Decoder) sizeAttr(attrs hcl.Attributes, name string, dst *int64, positive bool) hcl.Diagnostics {
	v, ok, diags := d.ev.Attr(attrs, name, cty.DynamicPseudoType)
	if !ok {
		return diags
	}
	parse := hclread.SizeOrZero
	if positive {
		parse = hclread.Size
	}
	n, err := parse(v)
	if err != nil {
		zero := ""
		if !positive {
			zero = " (0 turns it off)"
		}
		return append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
			"%s must be a positive number of bytes or a size such as \"64MiB\"%s: %s.", name, zero, err))
	}
	*dst = n
	return diags
}

// tls decodes tls_cert_file and tls_key_file, relative to the
// configuration's directory; both or neither.
func (d *Decoder) tls(attrs hcl.Attributes, s *Server) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for name, dst := range map[string]*string{"tls_cert_file": &s.TLSCertFile, "tls_key_file": &s.TLSKeyFile} {
		v, ok, more := d.ev.Attr(attrs, name, cty.String)
		diags = append(diags, more...)
		if ok {
			*dst = d.ev.RelPath(v.AsString())
		}
	}
	if (s.TLSCertFile == "") != (s.TLSKeyFile == "") {
		at := attrs["tls_cert_file"]
		if at == nil {
			at = attrs["tls_key_file"]
		}
		diags = append(diags, hclread.ErrorAt(at.Expr.Range(), "Incomplete TLS settings", "HTTPS needs both tls_cert_file and tls_key_file."))
	}
	return diags
}

// checkListen accepts HOST:PORT where HOST is empty (every interface), an
// IP address or a host name, and PORT is 0..65535.
func checkListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT: %v", addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	if host != "" && net.ParseIP(host) == nil && !hostname.MatchString(host) {
		return fmt.Errorf("%q: %q is neither an IP address nor a host name", addr, host)
	}
	return nil
}
