// Command testplugin is every plugin the plugin tests need, well-behaved
// or not, chosen by its first argument:
//
//	codec        serves test.gate (identity, blocks while a gate file
//	             exists), test.hang (decode never returns) and
//	             test.crashonce (the first decode panics)
//	crowd        serves test.crowd (identity; the process dies once with
//	             a crowd of decodes in flight)
//	memory       serves the "memory" store type (one store per configuration),
//	             "crashy", and "counted" (a memory store counting its calls,
//	             which "callcount" of the same configuration reads)
//	env          serves the "testenv" store type (its environment as keys)
//	stdout       prints to stdout before serving, breaking the handshake
//	version99    serves a protocol version no host speaks
//	notplugin    behaves like any other command-line tool
//	silent       never completes the handshake
//	host PATH SHA256
//	             launches PATH codec as a plugin, prints its PID, waits
//
// When ZARRGW_TEST_MARKER is set, each run first creates that file, so a
// test can tell whether the binary was executed at all.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if m := os.Getenv("ZARRGW_TEST_MARKER"); m != "" {
		if err := os.WriteFile(m, []byte("executed\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "codec":
		serveCodecs()
	case "crowd":
		serveCrowd()
	case "memory":
		serveMemory()
	case "env":
		serveEnv()
	case "stdout":
		fmt.Println("hello from a plugin that talks too early")
		serveCodecs()
	case "version99":
		serveVersion99()
	case "silent":
		time.Sleep(time.Hour)
	case "host":
		runHost(os.Args[2], os.Args[3])
	default:
		fmt.Println("usage: testplugin codec|crowd|memory|env|stdout|version99|host")
		os.Exit(2)
	}
}
