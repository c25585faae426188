// Command worker-image plans the system disks of Cozystack tenant worker
// pools and guards the catalog of golden Talos images: plan, catalog render,
// catalog consumers, catalog prune, computeplane and helm-verify. Package
// adapters/cli holds its commands, flags and outputs; this package only runs
// them on the process's arguments and streams.
//
// # Rules
//
//   - Exit status: 0 planned (warnings may be printed), 3 refused, 2 unusable
//     input (an unreadable file, YAML that does not parse, named by file and
//     line, a document that is not a Kubernetes object, a bad flag), 1
//     anything else (a cluster that cannot be read, an endpoint that is not
//     a Kubernetes API server).
//   - Installed on PATH as kubectl-worker_image, it runs as
//     `kubectl worker-image`, with kubectl's flags and KUBECONFIG, and its
//     help names itself so.
//   - --strict refuses what could not be checked; helm-verify is strict by
//     default.
package main
