package pluginsource

// The documents of Terraform's provider network mirror protocol, relative
// to a mirror's base URL:
//
//	HOST/NAMESPACE/TYPE/index.json      VersionIndex
//	HOST/NAMESPACE/TYPE/VERSION.json    PackageIndex
//
// so that any static HTTP server over a directory of such files (as
// "zarrgw plugins mirror" writes) is a mirror.

// VersionIndex lists the versions a mirror has of one plugin. The values
// are empty objects, reserved by the protocol.
type VersionIndex struct {
	Versions map[string]struct{} `json:"versions"`
}

// PackageIndex lists the packages of one version, by platform (OS_ARCH).
type PackageIndex struct {
	Archives map[string]Archive `json:"archives"`
}

// Archive is one package: the URL of its zip file, relative to the
// PackageIndex's own URL or absolute, and the hashes it must match
// (optional; "h1:..." and "zh:...").
type Archive struct {
	URL    string   `json:"url"`
	Hashes []string `json:"hashes,omitempty"`
}
