package capk

import (
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddToScheme registers KubevirtMachineTemplate and its list in
// infrastructure.cluster.x-k8s.io/v1alpha1, for a client that reads them
// typed (a controller-runtime client, its cache). A scheme that already
// maps that kind to another Go type (CAPK's own) is left as it is, with an
// error that says so: a scheme holds one type per kind, and registering a
// second would panic.
func AddToScheme(s *runtime.Scheme) error {
	known := s.AllKnownTypes()
	for _, o := range []runtime.Object{&KubevirtMachineTemplate{}, &KubevirtMachineTemplateList{}} {
		t := reflect.TypeOf(o).Elem()
		gvk := GroupVersion().WithKind(t.Name())
		if have, ok := known[gvk]; ok && have != t {
			return fmt.Errorf("capk: the scheme maps %s to %s; it cannot also hold %s (read templates through a scheme without CAPK's types)", gvk, have, t)
		}
	}
	s.AddKnownTypes(GroupVersion(), &KubevirtMachineTemplate{}, &KubevirtMachineTemplateList{})
	metav1.AddToGroupVersion(s, GroupVersion())
	return nil
}
