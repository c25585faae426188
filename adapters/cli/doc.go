// Package cli is the worker-image command as a
// library, so that it runs in-process in tests: Run takes the arguments,
// standard input and outputs, and returns the exit status. The main
// package in cmd/worker-image only calls it. The command tree is cobra's
// (help at every level, completion, --version), with kubectl's flags.
//
// # Commands
//
//	worker-image plan [kubernetesnodes/NAME ...] [-f POOL.yaml ...] [--catalog CATALOG.yaml] [--state STATE.yaml [--observed KIND,...]] [-n NAMESPACE | -A] [--strict] [-o yaml|json|chart|wide]
//	worker-image plan [vmdisks[/NAME] ...] [-f VMDISK.yaml ...] [--images IMAGES.yaml] [--state …] [-n NAMESPACE | -A] [--strict] [-o yaml|json]
//	worker-image diff [kubernetesnodes/NAME ...] [-f POOL.yaml ...] [--catalog CATALOG.yaml] [--after-pools POOL.yaml] [--after-catalog CATALOG.yaml] [--set KEY=VALUE ...] [--cozystack-values VALUES.yaml] [--state …] [-n NAMESPACE | -A] [--strict] [-o yaml|json|wide]
//	worker-image catalog render --catalog CATALOG.yaml [--state …] [--strict] [-o yaml|json]
//	worker-image catalog consumers GOLDEN [--state …] [--strict] [-o yaml|json|wide]
//	worker-image catalog prune --catalog CATALOG.yaml [--state …] [--strict] [-o yaml|json]
//	worker-image catalog images render [--images IMAGES.yaml] [--state …] [--strict] [-o yaml|json]
//	worker-image catalog images consumers IMAGE [--state …] [--strict] [-o yaml|json|wide]
//	worker-image catalog images prune [--images IMAGES.yaml] [--state …] [--strict] [-o yaml|json]
//	worker-image computeplane -f VALUES.yaml [--strict] [-o yaml|json]
//	worker-image helm-verify [--catalog …] [--state …] [-n NAMESPACE] [--strict=false] [--report-to PATH] < rendered.yaml
//	worker-image webhook --cert-dir DIR [flags]
//	worker-image webhook manifests [flags]
//	worker-image controller [flags]
//	worker-image completion bash|zsh|fish|powershell
//	worker-image version
//
// Every command that reads a cluster takes kubectl's --kubeconfig,
// --context, -n/--namespace and --request-timeout, and loads the kubeconfig
// by client-go's rules (KUBECONFIG, then ~/.kube/config). A cluster is read
// when one of them names it, or when plan plans the cluster's own pools.
// Commands declared with package flag register in commands and join the
// tree through command.cobraCommand.
//
// # Failing closed
//
// An endpoint whose discovery fails is not a Kubernetes API server: status
// 1. A --state file observes the kinds it holds an object of, plus those
// --observed names. Each StateUnverified says its cause (Warning.Cause);
// --strict refuses every StateUnverified and UnknownField, and helm-verify
// is strict by default. Every human-readable writer prints through printf,
// which escapes every string it is given (escape).
//
// # Exit status
//
// 0 planned (warnings may be printed); 4 unverified: nothing was refused,
// but a kind a guard needed could not be read (RBAC, not served, not in the
// --state file), every such kind named at once; 3 refused; 2 unusable
// input (an input larger than --max-input-bytes, default 256Mi, refused
// before it is read whole; an unreadable file, YAML that does not parse,
// named by file and line, a document that is not a Kubernetes object, a bad
// flag); 1 anything else (a cluster that cannot be read, an endpoint that
// is not an API server).
//
// # kubectl plugin
//
// Installed on PATH as kubectl-worker_image, the binary runs as
// `kubectl worker-image …`; its help then names itself so, and it reads the
// cluster KUBECONFIG names, as kubectl does.
package cli
