package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

// Set at build time, for a release:
//
//	go build -ldflags "-X main.release=1.2.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/zarrgw
//
// Without them, the version and commit come from what the Go toolchain
// recorded in the binary (the module version; the VCS revision of a build
// in a checkout).
var (
	release = ""
	commit  = ""
)

// buildInfo is what "zarrgw version --json" prints. Field names are
// stable; new fields may be added.
type buildInfo struct {
	// Version is the release ("1.2.0"), or "devel" for a build from a
	// checkout.
	Version string `json:"version"`
	// Commit is the VCS revision built, "" when unknown; CommitTime its
	// time (RFC 3339), and Modified whether the checkout had uncommitted
	// changes.
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time"`
	Modified   bool   `json:"modified"`
	GoVersion  string `json:"go_version"`
	Platform   string `json:"platform"` // OS_ARCH, as plugin packages name it
	// PluginProtocolVersions are the plugin protocol versions this build
	// speaks, the newest last.
	PluginProtocolVersions []int `json:"plugin_protocol_versions"`
	// Zstd is the zstd implementation of the build: "klauspost/compress
	// vX (pure Go)" by default, "libzstd X (cgo, ...)" built with -tags
	// libzstd.
	Zstd string `json:"zstd"`
}

func currentBuild() buildInfo {
	b := buildInfo{Version: release, Commit: commit, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "_" + runtime.GOARCH, PluginProtocolVersions: app.PluginProtocolVersions(), Zstd: app.ZstdLibrary()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			b.Version = strings.TrimPrefix(info.Main.Version, "v")
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if b.Commit == "" {
					b.Commit = s.Value
				}
			case "vcs.time":
				b.CommitTime = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true" && commit == ""
			}
		}
	}
	if b.Version == "" {
		b.Version = "devel"
	}
	return b
}

// text is the version as "zarrgw version" and "zarrgw --version" print it.
func (b buildInfo) text() string {
	var s strings.Builder
	fmt.Fprintf(&s, "zarrgw %s\n", b.Version)
	switch {
	case b.Commit == "":
		s.WriteString("commit: unknown\n")
	case b.Modified:
		fmt.Fprintf(&s, "commit: %s (with uncommitted changes)\n", b.Commit)
	default:
		fmt.Fprintf(&s, "commit: %s\n", b.Commit)
	}
	fmt.Fprintf(&s, "go: %s, %s\n", b.GoVersion, b.Platform)
	versions := make([]string, len(b.PluginProtocolVersions))
	for i, v := range b.PluginProtocolVersions {
		versions[i] = fmt.Sprint(v)
	}
	fmt.Fprintf(&s, "plugin protocol versions: %s\n", strings.Join(versions, ", "))
	fmt.Fprintf(&s, "zstd: %s\n", b.Zstd)
	return s.String()
}

func newVersion() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print zarrgw's version, commit, Go version, plugin protocol versions and zstd library",
		Example: `  zarrgw version
  zarrgw --version
  zarrgw version --json | jq -r .commit`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object: version, commit, commit_time, modified, go_version, platform, plugin_protocol_versions, zstd")
	return cmd
}

func printVersion(w io.Writer, asJSON bool) error {
	b := currentBuild()
	if !asJSON {
		_, err := io.WriteString(w, b.text())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}
