// Package pluginapi is the wire protocol between zarrgw and its plugins and
// the Go SDK on both sides of it.
//
// Plugin authors call ServeCodec, ServeStore, ServeTransformer (or Serve for
// a mix) from main; the host reaches a running plugin through a Connector
// (host/runtime/launcher provides one) and a Client, whose codecs and stores
// implement the core/codec and core/store interfaces, so the engine never
// knows where an extension runs.
//
// The protocol is gRPC through hashicorp/go-plugin (proto/zarrgw/v1, code
// generated into zarrgwv1 by generate.sh). Calls carry everything they need
// (codec name and configuration, store configuration): a plugin caches
// what it builds, and a restarted plugin rebuilds it on demand, so the host
// holds no handle that dies with a process. Payloads travel in frames of at
// most FrameSize bytes, so no value is bound by gRPC's message limit.
// Sentinel errors (store.ErrNotFound, codec.ErrCorrupt, ...) cross the
// boundary as status details and still match errors.Is on the other side.
package pluginapi
