package s3wire

import (
	"encoding/xml"
	"time"
)

// Namespace is the XML namespace of S3's documents.
const Namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

// MaxPage is the most entries S3 returns or takes in one request: keys,
// parts or uploads in a page of a listing (max-keys, max-parts and
// max-uploads are capped at it, and it is their default), and keys
// named in one DeleteObjects document.
const MaxPage = 1000

// TimeFormat is how S3's XML writes times.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Owner is the owner block S3 puts in listings.
type Owner struct {
	ID          string
	DisplayName string
}

// ListAllMyBucketsResult answers ListBuckets.
type ListAllMyBucketsResult struct {
	XMLName xml.Name `xml:"ListAllMyBucketsResult"`
	Xmlns   string   `xml:"xmlns,attr"`
	Owner   Owner
	Buckets []Bucket `xml:"Buckets>Bucket"`
}

// Bucket is one bucket of ListBuckets.
type Bucket struct {
	Name         string
	CreationDate string
}

// Object is one key of a listing.
type Object struct {
	Key          string
	LastModified string
	ETag         string
	Size         int64
	StorageClass string
	Owner        *Owner `xml:",omitempty"`
}

// CommonPrefix is a "directory" of a listing with a delimiter.
type CommonPrefix struct {
	Prefix string
}

// ListBucketResult answers ListObjects (V1 and V2: the fields of one are
// left empty in the other).
type ListBucketResult struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	Xmlns                 string   `xml:"xmlns,attr"`
	Name                  string
	Prefix                string
	Delimiter             string `xml:",omitempty"`
	MaxKeys               int
	EncodingType          string `xml:",omitempty"`
	IsTruncated           bool
	Marker                *string `xml:",omitempty"` // V1
	NextMarker            string  `xml:",omitempty"` // V1
	ContinuationToken     string  `xml:",omitempty"` // V2
	NextContinuationToken string  `xml:",omitempty"` // V2
	StartAfter            string  `xml:",omitempty"` // V2
	KeyCount              *int    `xml:",omitempty"` // V2
	Contents              []Object
	CommonPrefixes        []CommonPrefix
}

// LocationConstraint answers GetBucketLocation.
type LocationConstraint struct {
	XMLName xml.Name `xml:"LocationConstraint"`
	Xmlns   string   `xml:"xmlns,attr"`
	Region  string   `xml:",chardata"`
}

// VersioningConfiguration answers GetBucketVersioning: never enabled.
type VersioningConfiguration struct {
	XMLName xml.Name `xml:"VersioningConfiguration"`
	Xmlns   string   `xml:"xmlns,attr"`
}

// Delete is the body of DeleteObjects.
type Delete struct {
	XMLName xml.Name `xml:"Delete"`
	Quiet   bool
	Objects []struct {
		Key       string
		VersionID string `xml:"VersionId"`
	} `xml:"Object"`
}

// DeleteResult answers DeleteObjects.
type DeleteResult struct {
	XMLName xml.Name       `xml:"DeleteResult"`
	Xmlns   string         `xml:"xmlns,attr"`
	Deleted []DeletedKey   `xml:"Deleted"`
	Errors  []DeleteFailed `xml:"Error"`
}

// DeletedKey is a key DeleteObjects erased.
type DeletedKey struct{ Key string }

// DeleteFailed is a key DeleteObjects could not erase.
type DeleteFailed struct {
	Key     string
	Code    string
	Message string
}

// CopyObjectResult answers CopyObject.
type CopyObjectResult struct {
	XMLName      xml.Name `xml:"CopyObjectResult"`
	Xmlns        string   `xml:"xmlns,attr"`
	LastModified string
	ETag         string
}

// CopyPartResult answers UploadPartCopy.
type CopyPartResult struct {
	XMLName      xml.Name `xml:"CopyPartResult"`
	Xmlns        string   `xml:"xmlns,attr"`
	LastModified string
	ETag         string
}

// InitiateMultipartUploadResult answers CreateMultipartUpload.
type InitiateMultipartUploadResult struct {
	XMLName  xml.Name `xml:"InitiateMultipartUploadResult"`
	Xmlns    string   `xml:"xmlns,attr"`
	Bucket   string
	Key      string
	UploadID string `xml:"UploadId"`
}

// CompleteMultipartUpload is the body of CompleteMultipartUpload.
type CompleteMultipartUpload struct {
	XMLName xml.Name `xml:"CompleteMultipartUpload"`
	Parts   []struct {
		PartNumber int
		ETag       string
	} `xml:"Part"`
}

// CompleteMultipartUploadResult answers CompleteMultipartUpload.
type CompleteMultipartUploadResult struct {
	XMLName  xml.Name `xml:"CompleteMultipartUploadResult"`
	Xmlns    string   `xml:"xmlns,attr"`
	Location string
	Bucket   string
	Key      string
	ETag     string
}

// ListPartsResult answers ListParts.
type ListPartsResult struct {
	XMLName              xml.Name `xml:"ListPartsResult"`
	Xmlns                string   `xml:"xmlns,attr"`
	Bucket               string
	Key                  string
	UploadID             string `xml:"UploadId"`
	PartNumberMarker     int
	NextPartNumberMarker int
	MaxParts             int
	IsTruncated          bool
	Parts                []Part `xml:"Part"`
}

// Part is one uploaded part.
type Part struct {
	PartNumber   int
	LastModified string
	ETag         string
	Size         int64
}

// ListMultipartUploadsResult answers ListMultipartUploads.
type ListMultipartUploadsResult struct {
	XMLName            xml.Name `xml:"ListMultipartUploadsResult"`
	Xmlns              string   `xml:"xmlns,attr"`
	Bucket             string
	KeyMarker          string
	UploadIDMarker     string `xml:"UploadIdMarker"`
	NextKeyMarker      string
	NextUploadIDMarker string `xml:"NextUploadIdMarker"`
	MaxUploads         int
	IsTruncated        bool
	Prefix             string
	Uploads            []Upload `xml:"Upload"`
}

// Upload is one multipart upload in progress.
type Upload struct {
	Key       string
	UploadID  string `xml:"UploadId"`
	Initiated string
}

// Time formats t as S3's XML does.
func Time(t time.Time) string {
	if t.IsZero() {
		t = time.Unix(0, 0)
	}
	return t.UTC().Format(TimeFormat)
}
