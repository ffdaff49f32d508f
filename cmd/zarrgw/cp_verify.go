package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
	"github.com/zarrgw/zarrgw/host/runtime/registry"
)

// verifyWith opens both sides and compares DST with what the copy makes
// there (cp --verify), printing what differs.
func verifyWith(ctx context.Context, cmd *cobra.Command, set registry.Set, srcLoc, dstLoc string, f cpFlags, opts transfer.Options) (err error) {
	stderr := cmd.ErrOrStderr()
	src, err := location.Resolve(ctx, set, f.config, srcLoc, stderr)
	if err != nil {
		return err
	}
	defer src.Close()
	defer func() { err = src.Redact(err) }() // both sides are of one configuration
	dst, err := openDestination(ctx, set, f, dstLoc, stderr)
	if err != nil {
		return err
	}
	defer dst.Close()
	srcEnd := transfer.Endpoint{Name: srcLoc, Store: src.Store, Options: src.Options, Remote: location.Remote(srcLoc)}
	dstEnd := transfer.Endpoint{Name: dstLoc, Store: dst.Store, Options: dst.Options, Remote: location.Remote(dstLoc)}
	r, err := transfer.Verify(ctx, srcEnd, dstEnd, opts)
	if r.Checked == 0 && err != nil {
		return err // nothing compared: the plan itself failed
	}
	if perr := printVerify(cmd.OutOrStdout(), r, f.asJSON); perr != nil && err == nil {
		err = perr
	}
	return err
}

// printVerify prints what --verify found: a line per problem, then the
// counts; or one JSON object.
func printVerify(w io.Writer, r transfer.VerifyReport, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	for _, p := range r.Problems {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	of := ""
	if r.Partition != "" {
		of = " of partition " + r.Partition
	}
	verdict := "all as the copy makes them"
	if n := r.Missing + r.Different + r.Failed; n > 0 {
		verdict = fmt.Sprintf("%d missing, %d different, %d could not be compared", r.Missing, r.Different, r.Failed)
		if listed := int64(len(r.Problems)); listed < n {
			verdict += fmt.Sprintf(" (the first %d listed)", listed)
		}
	}
	foreign := ""
	if r.Foreign > 0 {
		foreign = fmt.Sprintf("; DST also holds %d keys the copy does not write, not checked", r.Foreign)
	}
	_, err := fmt.Fprintf(w, "cp --verify: %d objects%s checked: %s%s\n", r.Checked, of, verdict, foreign)
	return err
}
