// Package controllerruntime reads cluster state for the planner through a
// controller-runtime client.Reader, so that a controller plans from its
// manager's cache: give it mgr.GetCache() (or mgr.GetClient()) and a
// reconcile makes no request to the API server; over the cache itself a
// pool's plan reads the pool's own disks through an index, not its
// namespace's every DataVolume and PVC. It reads exactly the state.Request the planner gives
// (plan.Needs, plan.NeedsAll), with the same bounds and the same rules as
// package clientgo: Forbidden and kinds the server does not serve (a
// RESTMapper "no matches for kind": CDI not installed) are unknown, a
// golden's NotFound is absent, and any other failure is an error to
// requeue on, which names the kind it could not read and unwraps to the
// client's error (apierrors.IsTimeout and errors.Is see through it).
//
// # Scheme
//
// The manager's scheme must know the custom types (CDI's, the CSI
// snapshotter's, KubeVirt's VirtualMachine, the KubevirtMachineTemplate of
// package capk): call AddToScheme on it. A client whose scheme lacks them
// fails every read of them with an error that says so, rather than
// leaving the kinds unknown: that is a bug to fix, not a cluster state to
// warn about forever. The pools (KubernetesNodes, Flux's HelmReleases) are
// read unstructured, so they need no type in the scheme; a manager's client
// reads unstructured objects from the API server rather than its cache
// unless its cache options say otherwise (client.CacheOptions.Unstructured).
package controllerruntime
