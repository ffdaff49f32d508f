package server

import (
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/zarrgw/zarrgw/host/runtime/config/access"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
)

// S3Listener is the S3 API of the gateway: each dataset a bucket of the
// same name.
type S3Listener struct {
	Listen string
	Region string
	// Domain, when set, also serves virtual-hosted requests
	// (BUCKET.DOMAIN); path-style requests are always served.
	Domain string
	// BucketsFrom, when set, lets CreateBucket make a dataset below that
	// store (off by default); BucketAccess is who may read and write the
	// buckets made so.
	BucketsFrom  *hclread.StoreRef
	BucketAccess access.Access
	// BucketsPrefix is the key prefix in the BucketsFrom store under which
	// buckets are made, without a trailing "/"; "" is the store's top.
	// Validation refuses datasets of that store whose keys it could
	// overlap (Config.BucketOverlaps asks about one bucket).
	BucketsPrefix string
	// MultipartMaxAge is how long an unfinished multipart upload's parts
	// are kept.
	MultipartMaxAge time.Duration
	// MaxObjectSize bounds what a multipart upload or a copy makes (the
	// gateway assembles it in memory, as stores take whole values).
	MaxObjectSize int64
	// STS answers AssumeRoleWithWebIdentity; nil when the block has none.
	STS       *STS
	DeclRange hcl.Range
}

var s3Schema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "listen", Required: true}, {Name: "region"}, {Name: "domain"},
		{Name: "buckets_from"}, {Name: "buckets_prefix"}, {Name: "multipart_max_age"}, {Name: "max_object_size"}},
	Blocks: []hcl.BlockHeaderSchema{{Type: "bucket_access"}, {Type: "sts"}},
}

var (
	// bucketName is what S3 accepts as a bucket name
	bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	// ipAddress is what S3 refuses as one
	ipAddress = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)
)

// ValidBucketName reports whether name can be an S3 bucket's.
func ValidBucketName(name string) bool {
	return bucketName.MatchString(name) && !strings.Contains(name, "..") && !ipAddress.MatchString(name)
}

func (d *Decoder) s3Listener(b *hcl.Block, s *Server) hcl.Diagnostics {
	l := &S3Listener{Region: "us-east-1", MultipartMaxAge: 24 * time.Hour, MaxObjectSize: 1 << 30, DeclRange: b.DefRange, BucketAccess: access.Access{Read: nil}}
	content, diags := b.Body.Content(s3Schema)
	attrs := content.Attributes
	for name, dst := range map[string]*string{"listen": &l.Listen, "region": &l.Region, "domain": &l.Domain} {
		v, ok, more := d.ev.Attr(attrs, name, cty.String)
		diags = append(diags, more...)
		if ok {
			*dst = v.AsString()
		}
	}
	if err := checkListen(l.Listen); err != nil && attrs["listen"] != nil {
		diags = append(diags, hclread.ErrorAt(attrs["listen"].Expr.Range(), "Invalid listen address", "s3 listen: %s.", err))
	}
	diags = append(diags, d.bucketsFrom(attrs, l)...)
	if v, ok, more := d.ev.Attr(attrs, "multipart_max_age", cty.String); ok {
		age, err := time.ParseDuration(v.AsString())
		if err != nil || age <= 0 {
			diags = append(diags, hclread.ErrorAt(attrs["multipart_max_age"].Expr.Range(), "Invalid multipart_max_age",
				"multipart_max_age must be a positive duration such as \"24h\", not %q.", v.AsString()))
		}
		l.MultipartMaxAge = age
	} else {
		diags = append(diags, more...)
	}
	diags = append(diags, d.sizeAttr(attrs, "max_object_size", &l.MaxObjectSize, true)...)
	for _, blk := range content.Blocks {
		if blk.Type == "sts" {
			if l.STS != nil {
				diags = append(diags, hclread.Duplicate("sts block", blk.DefRange, l.STS.DeclRange))
				continue
			}
			var more hcl.Diagnostics
			l.STS, more = d.sts(blk)
			diags = append(diags, more...)
			continue
		}
		var a access.Access
		diags = append(diags, d.access.Lists(blk, "(buckets made by CreateBucket)", false, &a)...)
		l.BucketAccess = a
	}
	s.S3 = l
	return diags
}

// STS is the S3 listener's AssumeRoleWithWebIdentity: temporary S3
// credentials for a principal defined by claims, sealed so that every
// replica with the same keys verifies them without shared state.
type STS struct {
	// SealKeys seal and open session tokens: the first seals, every one
	// opens (rotation). Each at least 32 characters, from variables.
	SealKeys []string
	// DefaultDuration is a session's length when the request gives none;
	// MaxDuration the longest a request may ask for.
	DefaultDuration, MaxDuration time.Duration
	DeclRange                    hcl.Range
}

var stsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "seal_keys", Required: true}, {Name: "default_duration"}, {Name: "max_duration"}}}

// minSealKey is the shortest seal key accepted: 32 characters of a
// random secret are at least 128 bits even as hex.
const minSealKey = 32

// sts decodes the s3 block's sts block.
func (d *Decoder) sts(b *hcl.Block) (*STS, hcl.Diagnostics) {
	s := &STS{DefaultDuration: time.Hour, MaxDuration: 12 * time.Hour, DeclRange: b.DefRange}
	content, diags := b.Body.Content(stsSchema)
	attrs := content.Attributes
	if v, ok, more := d.ev.Attr(attrs, "seal_keys", cty.List(cty.String)); ok {
		s.SealKeys = hclread.StringList(v)
		at := attrs["seal_keys"].Expr.Range()
		if len(s.SealKeys) == 0 {
			diags = append(diags, hclread.ErrorAt(at, "No seal keys", "sts: seal_keys needs at least one key (the first seals new sessions, every one opens them)."))
		}
		for i, k := range s.SealKeys {
			if len(strings.TrimSpace(k)) < minSealKey {
				diags = append(diags, hclread.ErrorAt(at, "Seal key too short",
					"sts: seal key %d is %d characters; a seal key must be at least %d characters of a random secret, set from a variable (for example: openssl rand -hex 32).", i+1, len(strings.TrimSpace(k)), minSealKey))
			}
		}
		if len(attrs["seal_keys"].Expr.Variables()) == 0 {
			diags = append(diags, hclread.ErrorAt(at, "Seal key in the file",
				"sts: set seal_keys from variables (var.NAME, with env = \"...\" in the variable block), so the keys stay out of the file."))
		}
	} else {
		diags = append(diags, more...)
	}
	for name, dst := range map[string]*time.Duration{"default_duration": &s.DefaultDuration, "max_duration": &s.MaxDuration} {
		v, ok, more := d.ev.Attr(attrs, name, cty.String)
		diags = append(diags, more...)
		if !ok {
			continue
		}
		dur, err := time.ParseDuration(v.AsString())
		if err != nil || dur < 15*time.Minute || dur > 7*24*time.Hour {
			diags = append(diags, hclread.ErrorAt(attrs[name].Expr.Range(), "Invalid "+name,
				"sts: %s must be a duration from \"15m\" to \"168h\", such as \"1h\".", name))
			continue
		}
		*dst = dur
	}
	if s.DefaultDuration > s.MaxDuration {
		diags = append(diags, hclread.ErrorAt(b.DefRange, "Invalid default_duration",
			"sts: default_duration (%s) is longer than max_duration (%s).", s.DefaultDuration, s.MaxDuration))
	}
	return s, diags
}
