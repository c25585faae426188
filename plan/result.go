package plan

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

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

// Result is a pool's plan. When Err is not nil the pool is refused and only
// Namespace, Name, Warnings and Err are meaningful.
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
	Warnings     []guard.Warning
	// Err holds the refusals, nil when planned; guard.Refusals opens it.
	Err error
}
