package cli

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

// TestFlagPackageCommand: a command declared with package flag (command,
// listed in commands) joins the cobra tree with its flags, one-letter ones
// as shorthands, and the shared flags register into its flag set.
func TestFlagPackageCommand(t *testing.T) {
	var got []string
	echo := &command{
		name:     "echo",
		summary:  "say what it was given",
		synopsis: "echo [-x N] [--catalog CATALOG.yaml] ARGS",
		about:    "Says its flags and arguments.",
		example:  "worker-image echo -x 3 a",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.String("x", "", "a value")
			o.catalogFlag(fs, "a catalog")
		},
		run: func(a *app, o *options, args []string) error {
			got = append([]string{o.catalog}, args...)
			printf(a.stdout, "ok\n")
			return nil
		},
	}
	saved := commands
	commands = append(commands, echo)
	defer func() { commands = saved }()
	var out, errOut bytes.Buffer
	code := Run([]string{"echo", "-x", "3", "--catalog", "c.yaml", "a", "b"}, strings.NewReader(""), &out, &errOut)
	if code != 0 || out.String() != "ok\n" || strings.Join(got, " ") != "c.yaml a b" {
		t.Errorf("exit %d, got %v\n%s%s", code, got, out.String(), errOut.String())
	}
	out.Reset()
	if code := Run([]string{"echo", "-h"}, strings.NewReader(""), &out, &errOut); code != 0 || !strings.Contains(out.String(), "Says its flags") || !strings.Contains(out.String(), "--catalog") {
		t.Errorf("help: exit %d\n%s", code, out.String())
	}
}
