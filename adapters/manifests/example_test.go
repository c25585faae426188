package manifests_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/stateindex"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// A kubectl get -o yaml dump becomes a State: the kinds the planner reads
// are decoded, every one of them is observed (no DataVolume in the file
// means none in the cluster), and other kinds are noted.
func ExampleRead() {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: replicated
    annotations:
      storageclass.kubernetes.io/is-default-class: "true"
  provisioner: linstor.csi.linbit.com
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: default
metadata:
  resourceVersion: ""
`
	res, err := manifests.Read("state.yaml", strings.NewReader(dump))
	if err != nil {
		fmt.Println(err)
		return
	}
	st := res.State
	snap := state.NewSnapshot(st)
	fmt.Println("default class:", stateindex.Of(snap).DefaultClass().Name)
	fmt.Println("DataVolumes observed:", stateindex.Of(snap).Observed(state.DataVolume), "count:", len(st.DataVolumes))
	for _, n := range res.Notes {
		fmt.Println(n.File, n.Line, n.Reason, n.Kind, n.Namespace+"/"+n.Name)
	}
	// Output:
	// default class: replicated
	// DataVolumes observed: true count: 0
	// state.yaml 11 KindNotRead Deployment default/web
}

// Malformed YAML fails with the file and the line within the whole file.
func ExampleRead_syntaxError() {
	const dump = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: replicated}
provisioner: linstor.csi.linbit.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: disk
  namespace: @tenant
`
	_, err := manifests.Read("state.yaml", strings.NewReader(dump))
	var e *manifests.Error
	if errors.As(err, &e) {
		fmt.Println(e.File, e.Line, e.Problem)
	}
	// Output:
	// state.yaml 10 Syntax
}

// Read also says which kinds the file held objects of, for a caller that
// treats a file as observing only those.
func ExampleRead_held() {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata: {name: replicated}
  provisioner: linstor.csi.linbit.com
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: disk, namespace: tenant-demo}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: disk, namespace: tenant-demo}
`
	res, err := manifests.Read("state.yaml", strings.NewReader(dump))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("held:", res.Held, "claims:", len(res.State.PersistentVolumeClaims))
	fmt.Println("observed:", res.State.Observed == state.AllKinds)
	for _, n := range res.Notes {
		fmt.Println(n.Line, n.Reason, n.Kind, "by line", n.By.Line)
	}
	// Output:
	// held: StorageClass|PersistentVolumeClaim claims: 1
	// observed: true
	// 8 Superseded PersistentVolumeClaim by line 11
}
