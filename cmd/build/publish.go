package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/dsight/dsight/internal/publish"
)

// publishCmd is `dsight publish REPORT --to DIR [--base-url URL]`: it
// writes the edge's bucket layout and prints what it wrote, with the share
// URL.
func publishCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	var to, base string
	fs.StringVar(&to, "to", "", "bucket directory to add the report to (nothing in it is removed)")
	fs.StringVar(&base, "base-url", "", "the edge's URL, to print a full share URL")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || to == "" {
		return fmt.Errorf("%w: dsight publish REPORT --to DIR [--base-url URL]", errUsage)
	}
	res, err := publish.Report(pos[0], to, base)
	if err != nil {
		return err
	}
	return printJSON(stdout, res)
}

// linkCmd is `dsight link REPORT --view '#view=…' --to DIR [--base-url
// URL]`: it mints the short link of a view of a published report.
func linkCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("link", flag.ContinueOnError)
	var to, base, view string
	fs.StringVar(&view, "view", "", `the view: its "#view=…" fragment or the whole view link`)
	fs.StringVar(&to, "to", "", "bucket directory the report was published to")
	fs.StringVar(&base, "base-url", "", "the edge's URL, to print a full short link")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || to == "" || view == "" {
		return fmt.Errorf("%w: dsight link REPORT --view '#view=…' --to DIR [--base-url URL]", errUsage)
	}
	id, err := publish.Link(pos[0], to, view)
	if err != nil {
		return err
	}
	path := "/v/" + id
	rec := map[string]string{"id": id, "path": path}
	if base != "" {
		rec["url"] = strings.TrimRight(base, "/") + path
	}
	return printJSON(stdout, rec)
}
