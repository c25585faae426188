package main

import (
	"os"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
