package app

import (
	"context"
	"fmt"

	"github.com/zarrgw/zarrgw/host/app/location"
	"github.com/zarrgw/zarrgw/host/commands/transfer"
)

// VerifyCopy writes nothing: it opens both sides and compares the
// destination with what the copy o describes makes there (cp --verify),
// printing what is missing or different. Its error says that something
// is, or that the comparison could not be made.
func VerifyCopy(ctx context.Context, set Set, o CopyOptions) (err error) {
	opts, err := o.transferOptions()
	if err != nil {
		return err
	}
	src, err := location.Resolve(ctx, set, o.Config, o.Source, o.Stderr)
	if err != nil {
		return err
	}
	defer src.Close()
	defer func() { err = src.Redact(err) }() // both sides are of one configuration
	dst, err := o.openDestination(ctx, set)
	if err != nil {
		return err
	}
	defer dst.Close()
	r, err := transfer.Verify(ctx, endpoint(o.Source, src), endpoint(o.Destination, dst), opts)
	if r.Checked == 0 && err != nil {
		return err // nothing compared: the plan itself failed
	}
	if perr := o.printVerify(r); perr != nil && err == nil {
		err = perr
	}
	return err
}

// printVerify prints what --verify found: a line per problem, then the
// counts; or one JSON object.
func (o CopyOptions) printVerify(r transfer.VerifyReport) error {
	if o.JSON {
		return writeJSON(o.Stdout, r)
	}
	for _, p := range r.Problems {
		if _, err := fmt.Fprintln(o.Stdout, p); err != nil {
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
	_, err := fmt.Fprintf(o.Stdout, "cp --verify: %d objects%s checked: %s%s\n", r.Checked, of, verdict, foreign)
	return err
}
