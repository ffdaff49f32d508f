package config

import (
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zarrgw/zarrgw/host/runtime/config/hclread"
	"github.com/zclconf/go-cty/cty"
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
	BucketsFrom  *StoreRef
	BucketAccess Access
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

func (d *decoder) s3Listener(b *hcl.Block) hcl.Diagnostics {
	l := &S3Listener{Region: "us-east-1", MultipartMaxAge: 24 * time.Hour, MaxObjectSize: 1 << 30, DeclRange: b.DefRange, BucketAccess: Access{Read: nil}}
	content, diags := b.Body.Content(s3Schema)
	attrs := content.Attributes
	for name, dst := range map[string]*string{"listen": &l.Listen, "region": &l.Region, "domain": &l.Domain} {
		v, ok, more := d.evalAttr(attrs, name, cty.String)
		diags = append(diags, more...)
		if ok {
			*dst = v.AsString()
		}
	}
	if err := checkListen(l.Listen); err != nil && attrs["listen"] != nil {
		diags = append(diags, hclread.ErrorAt(attrs["listen"].Expr.Range(), "Invalid listen address", "s3 listen: %s.", err))
	}
	diags = append(diags, d.bucketsFrom(attrs, l)...)
	if v, ok, more := d.evalAttr(attrs, "multipart_max_age", cty.String); ok {
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
		var ds Dataset
		ds.Name = "(buckets made by CreateBucket)"
		diags = append(diags, d.access(blk, &ds)...)
		l.BucketAccess = ds.Access
	}
	d.cfg.Server.S3 = l
	return diags
}

// checkBucketNames reports datasets whose names cannot be bucket names
// when the S3 listener is on.
func (d *decoder) checkBucketNames() hcl.Diagnostics {
	if d.cfg.Server.S3 == nil {
		return nil
	}
	var diags hcl.Diagnostics
	for _, ds := range d.cfg.Datasets {
		if !ValidBucketName(ds.Name) {
			diags = append(diags, hclread.ErrorAt(ds.DeclRange, "Dataset name is not a bucket name",
				"Dataset %q is served as an S3 bucket of the same name, and S3 bucket names are 3 to 63 lower-case letters, digits, dots and dashes, starting and ending with a letter or digit. Rename it, or leave out the server's s3 block.", ds.Name))
		}
	}
	return diags
}

// principalS3 decodes a principal's S3 credentials: both or neither, the
// secret from a variable.
func (d *decoder) principalS3(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	var diags hcl.Diagnostics
	id, idOK, more := d.evalAttr(attrs, "s3_access_key_id", cty.String)
	diags = append(diags, more...)
	secret, secretOK, more := d.evalAttr(attrs, "s3_secret_access_key", cty.String)
	diags = append(diags, more...)
	if idOK != secretOK {
		at := attrs["s3_access_key_id"]
		if at == nil {
			at = attrs["s3_secret_access_key"]
		}
		return append(diags, hclread.ErrorAt(at.Expr.Range(), "Incomplete S3 credentials",
			"Principal %q: give both s3_access_key_id and s3_secret_access_key.", p.Name))
	}
	if !idOK {
		return diags
	}
	if !fromVariable(attrs["s3_secret_access_key"].Expr.Variables()) {
		return append(diags, hclread.ErrorAt(attrs["s3_secret_access_key"].Expr.Range(), `Secret "s3_secret_access_key" written in the file`,
			"Principal %q: set s3_secret_access_key from a variable (var.NAME, with env = \"...\" in the variable block), so the value stays out of the file.", p.Name))
	}
	p.S3AccessKeyID, p.S3SecretAccessKey = id.AsString(), secret.AsString()
	return append(diags, d.checkS3Credentials(attrs, p)...)
}

// checkS3Credentials refuses an empty key ID, an empty or published
// secret, and a key ID another principal has.
func (d *decoder) checkS3Credentials(attrs hcl.Attributes, p *Principal) hcl.Diagnostics {
	idAttr := attrs["s3_access_key_id"]
	if strings.TrimSpace(p.S3AccessKeyID) == "" {
		return hcl.Diagnostics{hclread.ErrorAt(idAttr.Expr.Range(), "Empty S3 access key ID",
			"Principal %q: s3_access_key_id is empty; give the key ID its S3 requests are signed with.", p.Name)}
	}
	if diag := d.checkSecret(attrs["s3_secret_access_key"], "S3 secret", p.Name, strings.TrimSpace(p.S3SecretAccessKey)); diag != nil {
		return hcl.Diagnostics{diag}
	}
	if diag := d.claim("S3 access key ID", p.S3AccessKeyID, p.Name, idAttr.Expr.Range()); diag != nil {
		return hcl.Diagnostics{diag}
	}
	return nil
}

// Principal returns the principal with an S3 access key ID.
func (c *Config) PrincipalByAccessKey(id string) (*Principal, bool) {
	for i := range c.Principals {
		if c.Principals[i].S3AccessKeyID == id && id != "" {
			return &c.Principals[i], true
		}
	}
	return nil, false
}
