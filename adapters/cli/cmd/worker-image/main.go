// Command worker-image plans the system disks of Cozystack tenant worker
// pools and guards the catalog of golden Talos images (see package
// adapters/cli for its commands, flags and exit statuses). Installed on PATH
// as kubectl-worker_image it runs as `kubectl worker-image`.
package main

import (
	"os"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
