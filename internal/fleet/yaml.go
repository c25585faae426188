package fleet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// ListYAML prints a state's objects as one List, the way
// kubectl get -o yaml prints it.
func ListYAML(st *state.State) ([]byte, error) {
	return yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items(st), "metadata": map[string]any{"resourceVersion": ""}})
}

// Format is a way kubectl prints objects.
type Format int

const (
	// YAMLList is kubectl get -o yaml: one List.
	YAMLList Format = iota
	// YAMLDocuments is each object a "---"-separated YAML document.
	YAMLDocuments
	// JSONList is kubectl get -o json: one List, keys sorted, indented by
	// four spaces.
	JSONList
	// JSONDocuments is each object as kubectl get -o json prints one,
	// the objects "---"-separated.
	JSONDocuments
)

func (f Format) String() string {
	return [...]string{"YAMLList", "YAMLDocuments", "JSONList", "JSONDocuments"}[f]
}

// Write prints a state's objects as kubectl does in format f, object by
// object: a 500 MB file needs no tree of all its objects on the way.
func Write(w io.Writer, st *state.State, f Format) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if f == YAMLList {
		bw.WriteString("apiVersion: v1\nitems:\n")
	}
	if f == JSONList {
		bw.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
	}
	for i, o := range items(st) {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		switch f {
		case YAMLList, YAMLDocuments:
			y, err := yaml.Marshal(m)
			if err != nil {
				return err
			}
			if f == YAMLDocuments {
				bw.WriteString("---\n")
				bw.Write(y)
				continue
			}
			for j, line := range bytes.SplitAfter(y, []byte("\n")) {
				switch {
				case len(line) == 0:
				case j == 0:
					bw.WriteString("- ")
				case line[0] != '\n':
					bw.WriteString("  ")
				}
				bw.Write(line)
			}
		case JSONList:
			j, err := json.MarshalIndent(m, "        ", "    ")
			if err != nil {
				return err
			}
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n        ")
			bw.Write(j)
		case JSONDocuments:
			j, err := json.MarshalIndent(m, "", "    ")
			if err != nil {
				return err
			}
			bw.WriteString("---\n")
			bw.Write(j)
			bw.WriteByte('\n')
		default:
			return fmt.Errorf("fleet: no format %d", f)
		}
	}
	switch f {
	case YAMLList:
		bw.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	case JSONList:
		bw.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	}
	return bw.Flush()
}

// Print is Write into memory.
func Print(st *state.State, f Format) ([]byte, error) {
	var b bytes.Buffer
	err := Write(&b, st, f)
	return b.Bytes(), err
}

// items lists a state's objects, in state.Kind order, with their
// apiVersion and kind.
func items(st *state.State) []any {
	var items []any
	items = typed(items, schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass"}, st.StorageClasses)
	items = typed(items, schema.GroupVersionKind{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"}, st.CSIDrivers)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "StorageProfile"}, st.StorageProfiles)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDI"}, st.CDIs)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataVolume"}, st.DataVolumes)
	items = typed(items, schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"}, st.PersistentVolumeClaims)
	items = typed(items, schema.GroupVersionKind{Group: "snapshot.storage.k8s.io", Version: "v1", Kind: "VolumeSnapshotClass"}, st.VolumeSnapshotClasses)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "CDIConfig"}, st.CDIConfigs)
	items = typed(items, schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, st.PersistentVolumes)
	items = typed(items, capk.GroupVersion().WithKind("KubevirtMachineTemplate"), st.KubevirtMachineTemplates)
	items = typed(items, schema.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachine"}, st.VirtualMachines)
	items = typed(items, schema.GroupVersionKind{Group: "cdi.kubevirt.io", Version: "v1beta1", Kind: "DataSource"}, st.DataSources)
	return items
}

// typed appends copies of objs with their apiVersion and kind, which typed
// objects built in Go lack.
func typed[T any, P interface {
	*T
	GetObjectKind() schema.ObjectKind
}](items []any, gvk schema.GroupVersionKind, objs []T) []any {
	for _, o := range objs {
		P(&o).GetObjectKind().SetGroupVersionKind(gvk)
		items = append(items, P(&o))
	}
	return items
}
