// Package apiserver runs the real-API-server suite's control plane: a
// kube-apiserver and an etcd started by controller-runtime's envtest, with
// CDI's DataVolume, DataSource, StorageProfile, CDI and CDIConfig, the CSI
// snapshotter's VolumeSnapshotClass, KubeVirt's VirtualMachine, CAPK's
// KubevirtMachineTemplate and Cozystack's KubernetesNodes installed as CRDs (built in Go, status as a subresource), and the helpers
// its tests share: creating objects with their statuses, the realistic
// cluster of package fixtures, users with narrow RBAC, informer caches, and
// kubectl.
//
// # One control plane per package
//
// A package's TestMain calls Main; its tests call Get, which starts the
// control plane at its first call (a few seconds) and hands the same one
// to every later test; Main stops it after the last. Tests of a package
// therefore share cluster-scoped objects: they run one after another, and
// a test that changes a shared object puts it back. A test of this package
// that needs a cluster holding only its own objects (one compared whole,
// byte for byte) starts a second control plane of its own, stopped when
// the test ends.
//
// # Binaries
//
// kube-apiserver and etcd come from KUBEBUILDER_ASSETS or, when it is
// unset, from .cache/envtest/bin, where .ci/envtest-binaries builds them
// from the Go module proxy. Without them a test is skipped with a message
// naming that script; with CI=true it fails instead, so CI cannot pass on a
// suite that never ran.
package apiserver
