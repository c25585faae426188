package kinds

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kubevirtv1 "kubevirt.io/api/core/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/size"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

// goTypes are the API types AppendUnstructured converts each kind into.
var goTypes = map[state.Kind]reflect.Type{
	state.StorageClass:            reflect.TypeFor[storagev1.StorageClass](),
	state.PersistentVolumeClaim:   reflect.TypeFor[corev1.PersistentVolumeClaim](),
	state.DataVolume:              reflect.TypeFor[cdiv1.DataVolume](),
	state.StorageProfile:          reflect.TypeFor[cdiv1.StorageProfile](),
	state.CDI:                     reflect.TypeFor[cdiv1.CDI](),
	state.CSIDriver:               reflect.TypeFor[storagev1.CSIDriver](),
	state.VolumeSnapshotClass:     reflect.TypeFor[snapshotv1.VolumeSnapshotClass](),
	state.CDIConfig:               reflect.TypeFor[cdiv1.CDIConfig](),
	state.PersistentVolume:        reflect.TypeFor[corev1.PersistentVolume](),
	state.KubevirtMachineTemplate: reflect.TypeFor[capk.KubevirtMachineTemplate](),
	state.VirtualMachine:          reflect.TypeFor[kubevirtv1.VirtualMachine](),
	state.DataSource:              reflect.TypeFor[cdiv1.DataSource](),
}

// quantities is where a type holds resource.Quantity values, by JSON
// name: here at a Quantity, below in the fields, map values and list
// items that lead to one. A nil *quantities holds none.
type quantities struct {
	here   bool
	fields map[string]*quantities
	elem   *quantities
}

var quantityType = reflect.TypeFor[resource.Quantity]()

var quantityTrees sync.Map // reflect.Type → *quantities

// quantitiesOf is where t holds quantities, worked out once per type.
func quantitiesOf(t reflect.Type) *quantities {
	if q, ok := quantityTrees.Load(t); ok {
		return q.(*quantities)
	}
	q := walkType(t, map[reflect.Type]*quantities{})
	quantityTrees.Store(t, q)
	return q
}

func walkType(t reflect.Type, seen map[reflect.Type]*quantities) *quantities {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == quantityType {
		return &quantities{here: true}
	}
	if q, ok := seen[t]; ok {
		return q // a recursive type: its node, being filled
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		node := &quantities{}
		seen[t] = node
		if node.elem = walkType(t.Elem(), seen); node.elem == nil {
			return nil
		}
		return node
	case reflect.Struct:
		node := &quantities{fields: map[string]*quantities{}}
		seen[t] = node
		addFields(node, t, seen)
		if len(node.fields) == 0 {
			return nil
		}
		return node
	}
	return nil
}

// addFields adds the fields of struct t that hold quantities to node, an
// embedded or inline struct's as its own (as encoding/json reads them).
func addFields(node *quantities, t reflect.Type, seen map[reflect.Type]*quantities) {
	for f := range t.Fields() {
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct && ft != quantityType {
			addFields(node, ft, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if q := walkType(f.Type, seen); q != nil {
			node.fields[name] = q
		}
	}
}

// quantityFault is the first quantity text of obj, an object of kind k as
// a map, that size.Check refuses, with its path and why; "" and nil when
// there is none. The unstructured converter would hand it to
// resource.ParseQuantity, which takes seconds or hours on it.
func quantityFault(k state.Kind, obj map[string]any) (string, error) {
	t, ok := goTypes[k]
	if !ok {
		return "", nil
	}
	return faultAt(obj, quantitiesOf(t), "")
}

func faultAt(v any, q *quantities, at string) (string, error) {
	if q == nil {
		return "", nil
	}
	switch v := v.(type) {
	case string:
		if !q.here {
			return "", nil
		}
		if err := size.Check(v); err != nil {
			return at, fmt.Errorf("quantity %q: %w", size.Excerpt(strings.TrimSpace(v)), err)
		}
	case map[string]any:
		for key, e := range v {
			child := q.elem
			if q.fields != nil {
				child = q.fields[key]
			}
			if p, err := faultAt(e, child, at+"."+key); err != nil {
				return p, err
			}
		}
	case []any:
		for i, e := range v {
			if p, err := faultAt(e, q.elem, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}
