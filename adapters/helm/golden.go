package helm

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/internal/charttext"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// goldenAnnotations are the golden's annotations in the order the catalog
// chart writes them, and whether the chart quotes the value.
var goldenAnnotations = []struct {
	key    string
	quoted bool
}{
	{naming.ResourcePolicyAnnotation, false},
	{naming.BindImmediateAnnotation, true},
	{naming.UsePopulatorAnnotation, true},
	{naming.SchematicIDAnnotation, true},
	{naming.VersionAnnotation, true},
}

// GoldenText writes a golden DataVolume (catalog.Render's, or
// catalog.NewGolden's) as the catalog chart renders it,
// one YAML document without a leading "---", each line ending in "\n". The
// size is the quantity as the object holds it ("6144Mi" reads "6Gi"); the
// storageClassName line is left out when the class is empty.
//
// A DataVolume that the layout cannot hold whole (Render reproduces a live
// golden's spec as it is, which may carry more fields) is an error, so no
// field is lost in the text: write such an object with sigs.k8s.io/yaml.
func GoldenText(dv *cdiv1.DataVolume) (string, error) {
	if dv == nil {
		return "", errors.New("no DataVolume to write")
	}
	url, size, class, ok := goldenLayout(dv)
	if !ok {
		return "", fmt.Errorf("DataVolume %s/%s has fields outside the catalog chart's layout; write it as YAML instead", dv.Namespace, dv.Name)
	}
	var w charttext.Lines
	w.Line(0, "apiVersion: "+cdiv1.SchemeGroupVersion.String())
	w.Line(0, "kind: DataVolume")
	w.Line(0, "metadata:")
	w.Line(2, "name: "+dv.Name)
	w.Line(2, "namespace: "+dv.Namespace)
	w.Line(2, "annotations:")
	for _, a := range goldenAnnotations {
		v := dv.Annotations[a.key]
		if a.quoted {
			v = strconv.Quote(v)
		}
		w.Line(4, a.key+": "+v)
	}
	w.Line(2, "labels:")
	w.Line(4, naming.ManagedByLabel+": "+naming.ManagedBy)
	w.Line(0, "spec:")
	w.Line(2, "contentType: "+string(cdiv1.DataVolumeKubeVirt))
	w.Line(2, "source:")
	w.Line(4, "http:")
	w.Line(6, "url: "+strconv.Quote(url))
	w.Line(2, "storage:")
	w.Line(4, "resources:")
	w.Line(6, "requests:")
	w.Line(8, "storage: "+strconv.Quote(size.String()))
	if class != "" {
		w.Line(4, "storageClassName: "+strconv.Quote(class))
	}
	return w.String(), nil
}

// GoldenDocuments writes goldens as a YAML stream, each document after a
// "---" line, as `helm template` prints them.
func GoldenDocuments(goldens []cdiv1.DataVolume) (string, error) {
	var b strings.Builder
	for i := range goldens {
		text, err := GoldenText(&goldens[i])
		if err != nil {
			return "", err
		}
		b.WriteString("---\n")
		b.WriteString(text)
	}
	return b.String(), nil
}

// goldenLayout reads the layout's fields of dv and reports whether they are
// all of it: the object rebuilt from them equals dv.
func goldenLayout(dv *cdiv1.DataVolume) (url string, size resource.Quantity, class string, ok bool) {
	s := dv.Spec
	if s.Source == nil || s.Source.HTTP == nil || s.Storage == nil {
		return "", size, "", false
	}
	url = s.Source.HTTP.URL
	size = s.Storage.Resources.Requests[corev1.ResourceStorage]
	if s.Storage.StorageClassName != nil {
		class = *s.Storage.StorageClassName
	}
	annotations := make(map[string]string, len(goldenAnnotations))
	for _, a := range goldenAnnotations {
		if v, found := dv.Annotations[a.key]; found {
			annotations[a.key] = v
		}
	}
	rebuilt := cdiv1.DataVolume{
		TypeMeta: dv.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:        dv.Name,
			Namespace:   dv.Namespace,
			Annotations: annotations,
			Labels:      map[string]string{naming.ManagedByLabel: naming.ManagedBy},
		},
		Spec: cdiv1.DataVolumeSpec{
			ContentType: cdiv1.DataVolumeKubeVirt,
			Source:      &cdiv1.DataVolumeSource{HTTP: &cdiv1.DataVolumeSourceHTTP{URL: url}},
			Storage: &cdiv1.StorageSpec{
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
				StorageClassName: s.Storage.StorageClassName,
			},
		},
		Status: dv.Status,
	}
	return url, size, class, equality.Semantic.DeepEqual(&rebuilt, dv) && len(annotations) == len(goldenAnnotations)
}
