package plan

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

// Source is where a worker disk comes from.
type Source string

const (
	// HTTP imports the image from an Image Factory (the pre-feature render).
	HTTP Source = "http"
	// Clone clones the catalog's golden at the storage layer.
	Clone Source = "clone"
)

// Outcome says whether a pool was planned.
type Outcome string

const (
	Planned Outcome = "planned"
	Refused Outcome = "refused"
)

// DiskName is the dataVolumeTemplates entry every worker boots from.
const DiskName = "disk-system"

// Disk is the worker's dataVolumeTemplates entry for disk-system.
type Disk struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              cdiv1.DataVolumeSpec `json:"spec"`
}

// Result is a pool's plan. A refused pool (Refusals not empty) has only
// Namespace, Name, Outcome, Warnings and Refusals set.
//
// It marshals with encoding/json to the pool entry of `worker-image plan -o
// json`: {"namespace","name","outcome","source","golden",
// "disk","installerImage","storageClass","warnings","refusals"}, the disk
// absent when refused and its storage request written as the chart renders
// diskSize, and "blastRadius" (catalog.Radius) when AddBlastRadius set it.
type Result struct {
	Namespace string
	Name      string
	Outcome   Outcome
	Source    Source
	// Golden is the golden's name on the clone path, "" on the HTTP path.
	Golden string
	Disk   Disk
	// DiskSize is the disk's size as the chart renders it (the value as
	// given, "" falling back to 20Gi), for renderers that must match the
	// chart's text.
	DiskSize string
	// InstallerImage is the in-guest upgrade installer, from the pool's
	// effective flavor.
	InstallerImage string
	// StorageClass is the class written on the disk and where it came from.
	StorageClass storage.Resolution
	Warnings     guard.Warnings
	// Refusals are every refusal, nil when planned; Refusals.Err() is the
	// error Plan returned.
	Refusals guard.Refusals
	// BlastRadius is, on a planned result that warns GoldenUnavailable,
	// how many pools and templates still point at its golden; Plan leaves
	// it nil, AddBlastRadius sets it.
	BlastRadius *catalog.Radius
}

// resultJSON is Result's JSON shape.
type resultJSON struct {
	Namespace      string             `json:"namespace"`
	Name           string             `json:"name"`
	Outcome        Outcome            `json:"outcome"`
	Source         Source             `json:"source"`
	Golden         string             `json:"golden"`
	Disk           json.RawMessage    `json:"disk,omitempty"`
	InstallerImage string             `json:"installerImage"`
	StorageClass   storage.Resolution `json:"storageClass"`
	Warnings       guard.Warnings     `json:"warnings"`
	Refusals       guard.Refusals     `json:"refusals"`
	BlastRadius    *catalog.Radius    `json:"blastRadius,omitempty"`
}

// MarshalJSON writes the shape of a pool of `worker-image plan -o json`.
func (r Result) MarshalJSON() ([]byte, error) {
	out := resultJSON{Namespace: r.Namespace, Name: r.Name, Outcome: r.Outcome, Source: r.Source, Golden: r.Golden,
		InstallerImage: r.InstallerImage, StorageClass: r.StorageClass, Warnings: r.Warnings, Refusals: r.Refusals, BlastRadius: r.BlastRadius}
	if r.Outcome == Planned {
		disk, err := r.diskJSON()
		if err != nil {
			return nil, err
		}
		out.Disk = disk
	}
	return json.Marshal(out)
}

// diskJSON is the disk with its size as the chart renders it: the value as
// given, which a quantity cannot hold when it is malformed (the HTTP path
// renders it anyway) and would print canonically otherwise.
func (r Result) diskJSON() (json.RawMessage, error) {
	if r.DiskSize == "" || r.Disk.Spec.Storage == nil {
		return json.Marshal(r.Disk)
	}
	d := r.Disk
	d.Spec.Storage = r.Disk.Spec.Storage.DeepCopy()
	d.Spec.Storage.Resources.Requests = nil
	data, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	st := m["spec"].(map[string]any)["storage"].(map[string]any)
	st["resources"] = map[string]any{"requests": map[string]any{string(corev1.ResourceStorage): r.DiskSize}}
	return json.Marshal(m)
}
