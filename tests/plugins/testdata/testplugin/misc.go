package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/zarrgw/zarrgw/host/runtime/launcher"
	"github.com/zarrgw/zarrgw/pluginapi"
)

// serveVersion99 completes go-plugin's handshake with zarrgw's cookie but a
// protocol version no zarrgw speaks.
func serveVersion99() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  pluginapi.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{99: {pluginapi.PluginName: nothing{}}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}

type nothing struct{ plugin.NetRPCUnsupportedPlugin }

func (nothing) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error { return nil }

func (nothing) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, nil
}

// runHost is a host that launches one plugin, reports its PID and waits to
// be killed.
func runHost(path, sum string) {
	l := launcher.New(launcher.Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	p, err := l.Add(launcher.Spec{Name: "victim", Path: path, SHA256: sum, Args: []string{"codec"}})
	if err == nil {
		err = p.Start(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(p.Status().PID)
	select {}
}
