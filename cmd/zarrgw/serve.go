package main

import (
	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app"
)

func newServe(set app.Set) *cobra.Command {
	var path, listen, s3Listen string
	cmd := &cobra.Command{
		Use:   "serve --config FILE",
		Short: "Serve the datasets of a configuration over HTTP until interrupted",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := configPath(path, args)
			if err != nil {
				return err
			}
			return app.Serve(cmd.Context(), set, app.ServeOptions{File: file, Listen: listen, S3Listen: s3Listen, Stderr: cmd.ErrOrStderr()})
		},
	}
	addConfigFlag(cmd, &path)
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on, HOST:PORT (default: the server block's listen)")
	cmd.Flags().StringVar(&s3Listen, "s3-listen", "", "address of the S3 API, HOST:PORT (default: the s3 block's listen; needs an s3 block)")
	return cmd
}
