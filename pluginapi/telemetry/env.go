package telemetry

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Protocols of the OTLP exporter, as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"
)

// Config is what the OTEL_* variables ask of this process's traces.
type Config struct {
	// Enabled: spans are made and exported. Off unless OTEL_TRACES_EXPORTER
	// is "otlp" or an OTLP endpoint is set, and OTEL_SDK_DISABLED is not
	// "true". The specification makes "otlp" the default exporter; here no
	// variable means no traces, so a gateway without a collector neither
	// pays for spans nor tries to reach localhost:4318.
	Enabled bool
	// Protocol is ProtocolGRPC or ProtocolHTTPProtobuf (the default, as in
	// the specification).
	Protocol string
	// Propagators are those OTEL_PROPAGATORS names: "tracecontext" and
	// "baggage" by default; empty for "none".
	Propagators []string
	// DefaultEndpoint: no endpoint and no OTEL_EXPORTER_OTLP_INSECURE is
	// set, so the exporter sends to the specification's default,
	// http://localhost:4318 (4317 for grpc). Go's exporters would use TLS
	// there, which a local collector does not speak; Setup says plain.
	DefaultEndpoint bool
}

// FromEnv reads the OTEL_* variables through getenv (os.Getenv) and checks
// every one this process would act on: a value it cannot use is an error
// naming the variable, where the SDK and the exporters would log it and go
// on with a default (a typo in a sampler would silently trace everything).
// Header values are never quoted in errors: they may hold a collector's
// API key. The exporters read the variables themselves; this only decides
// whether to trace and refuses what would go wrong.
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	enabled, endpoint, err := tracesEnabled(env)
	if err != nil || !enabled {
		return c, err // nothing else is read: it cannot matter
	}
	c.Enabled = true
	c.DefaultEndpoint = !endpoint && env("OTEL_EXPORTER_OTLP_INSECURE") == "" && env("OTEL_EXPORTER_OTLP_TRACES_INSECURE") == ""
	if c.Protocol, err = protocolEnv(env); err != nil {
		return c, err
	}
	for _, signal := range []string{"", "TRACES_"} {
		if err := checkExporterEnv(env, "OTEL_EXPORTER_OTLP_"+signal, c.Protocol); err != nil {
			return c, err
		}
	}
	// The batch span processor's: zero or less would make no sense, and
	// the SDK would take a bad number for its default without a word.
	for _, name := range []string{"OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_EXPORT_TIMEOUT", "OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"} {
		if _, err := intEnv(env, name, 1); err != nil {
			return c, err
		}
	}
	if err := checkSampler(env); err != nil {
		return c, err
	}
	c.Propagators, err = propagatorsEnv(env)
	return c, err
}

// tracesEnabled reads whether this process traces at all: not disabled,
// and an OTLP exporter or an endpoint named. endpoint reports an endpoint
// variable set.
func tracesEnabled(env func(string) string) (enabled, endpoint bool, err error) {
	disabled, err := boolEnv(env, "OTEL_SDK_DISABLED")
	if err != nil {
		return false, false, err
	}
	otlp, none := false, false
	if v := env("OTEL_TRACES_EXPORTER"); v != "" {
		for _, e := range strings.Split(v, ",") {
			switch e = strings.ToLower(strings.TrimSpace(e)); e {
			case "otlp":
				otlp = true
			case "none":
				none = true
			default:
				return false, false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: exporter %q is not in this build; it exports traces over OTLP only (\"otlp\", or \"none\" for no traces)", v, e)
			}
		}
		if otlp && none {
			return false, false, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: \"none\" cannot be combined with another exporter", v)
		}
	}
	endpoint = env("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	return !disabled && !none && (otlp || endpoint), endpoint, nil
}

// protocolEnv is the OTLP protocol the variables ask for, HTTP/protobuf
// when they name none; the signal's own variable, read last, wins.
func protocolEnv(env func(string) string) (string, error) {
	protocol := ProtocolHTTPProtobuf
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		switch v := env(name); v {
		case "":
		case ProtocolGRPC, ProtocolHTTPProtobuf:
			protocol = v
		case "http/json":
			return "", fmt.Errorf("%s=%s: the Go exporter does not speak OTLP/JSON; use %q or %q", name, v, ProtocolHTTPProtobuf, ProtocolGRPC)
		default:
			return "", fmt.Errorf("%s=%s: want %q or %q", name, v, ProtocolHTTPProtobuf, ProtocolGRPC)
		}
	}
	return protocol, nil
}

// checkExporterEnv checks the exporter variables under prefix
// (OTEL_EXPORTER_OTLP_ or OTEL_EXPORTER_OTLP_TRACES_): endpoint, headers,
// timeout, insecure, compression, and that the files named exist.
func checkExporterEnv(env func(string) string, prefix, protocol string) error {
	if err := checkEndpoint(env, prefix+"ENDPOINT", protocol); err != nil {
		return err
	}
	if err := checkHeaders(env, prefix+"HEADERS"); err != nil {
		return err
	}
	if _, err := intEnv(env, prefix+"TIMEOUT", 0); err != nil {
		return err
	}
	if _, err := boolEnv(env, prefix+"INSECURE"); err != nil {
		return err
	}
	if v := env(prefix + "COMPRESSION"); v != "" && v != "gzip" && v != "none" {
		return fmt.Errorf("%sCOMPRESSION=%s: want \"gzip\" or \"none\"", prefix, v)
	}
	for _, file := range []string{"CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"} {
		if v := env(prefix + file); v != "" {
			if _, err := os.Stat(v); err != nil {
				return fmt.Errorf("%s%s: %w", prefix, file, err)
			}
		}
	}
	return nil
}

// propagatorsEnv is the propagators OTEL_PROPAGATORS names, tracecontext
// and baggage when it names none.
func propagatorsEnv(env func(string) string) ([]string, error) {
	v := env("OTEL_PROPAGATORS")
	if v == "" {
		return []string{"tracecontext", "baggage"}, nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		switch p = strings.ToLower(strings.TrimSpace(p)); p {
		case "tracecontext", "baggage":
			out = append(out, p)
		case "none":
		default:
			return nil, fmt.Errorf("OTEL_PROPAGATORS=%s: propagator %q is not in this build (\"tracecontext\", \"baggage\" or \"none\")", v, p)
		}
	}
	return out, nil
}

// boolEnv reads a boolean variable as the specification says: "true" in
// any case is true, "false" or nothing false; anything else is refused
// rather than read as false.
func boolEnv(env func(string) string, name string) (bool, error) {
	switch v := strings.ToLower(env(name)); v {
	case "true":
		return true, nil
	case "false", "":
		return false, nil
	}
	return false, fmt.Errorf("%s=%s: want \"true\" or \"false\"", name, env(name))
}

// intEnv reads a whole number of at least min (milliseconds, or a count).
func intEnv(env func(string) string, name string, min int) (int, error) {
	v := env(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("%s=%s: want a whole number of at least %d", name, v, min)
	}
	return n, nil
}

// checkEndpoint checks an endpoint is a URL the exporter will use as
// meant: without a scheme, "collector:4317" parses as the scheme
// "collector", and the exporter would try TLS on a plain port.
func checkEndpoint(env func(string) string, name, protocol string) error {
	v := env(name)
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("%s=%s: the URL names no host", name, v)
		}
		return nil
	case "unix":
		if protocol == ProtocolGRPC {
			return nil
		}
		return fmt.Errorf("%s=%s: a unix socket needs OTEL_EXPORTER_OTLP_PROTOCOL=grpc", name, v)
	}
	return fmt.Errorf("%s=%s: want a URL such as http://collector:4318 (http or https)", name, v)
}

// checkHeaders checks "key=value,key2=value2" with URL-encoded values.
// Errors name the key at most: the values may be secrets.
func checkHeaders(env func(string) string, name string) error {
	v := env(name)
	if v == "" {
		return nil
	}
	for i, pair := range strings.Split(v, ",") {
		key, value, ok := strings.Cut(pair, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t\"(),/:;<=>?@[\\]{}") {
			return fmt.Errorf("%s: entry %d is not key=value with a header name for key", name, i+1)
		}
		if _, err := url.PathUnescape(strings.TrimSpace(value)); err != nil {
			return fmt.Errorf("%s: the value of %s is not URL-encoded properly", name, key)
		}
	}
	return nil
}

// checkSampler checks OTEL_TRACES_SAMPLER and, for the ratio samplers,
// OTEL_TRACES_SAMPLER_ARG, against what the SDK understands.
func checkSampler(env func(string) string) error {
	s := strings.ToLower(env("OTEL_TRACES_SAMPLER"))
	switch s {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
		return nil
	case "traceidratio", "parentbased_traceidratio":
		arg := env("OTEL_TRACES_SAMPLER_ARG")
		if arg == "" {
			return nil
		}
		if r, err := strconv.ParseFloat(arg, 64); err != nil || r < 0 || r > 1 {
			return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%s: the ratio of %s must be a number from 0 to 1", arg, s)
		}
		return nil
	}
	return fmt.Errorf("OTEL_TRACES_SAMPLER=%s: want always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", env("OTEL_TRACES_SAMPLER"))
}
