package storage_test

import (
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/storage"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// class builds a StorageClass created minute minutes after epoch, carrying the
// annotations given as key, value pairs.
func class(name string, minute int, kv ...string) storagev1.StorageClass {
	b := fixtures.StorageClass(name).Created(epoch.Add(time.Duration(minute) * time.Minute))
	for i := 0; i+1 < len(kv); i += 2 {
		b.Annotation(kv[i], kv[i+1])
	}
	return *b.Obj()
}

const (
	virt = storage.VirtDefaultAnnotation
	ga   = storage.DefaultAnnotation
	beta = storage.BetaDefaultAnnotation
)

func TestDefaultClass(t *testing.T) {
	cases := map[string]struct {
		reason  string
		classes []storagev1.StorageClass
		want    string
	}{
		"none": {
			reason: "no classes, no default",
		},
		"no annotation": {
			reason:  "classes without a default annotation give no default",
			classes: []storagev1.StorageClass{class("a", 0), class("b", 1)},
		},
		"GA": {
			reason:  "the GA annotation makes a default",
			classes: []storagev1.StorageClass{class("a", 0), class("replicated", 0, ga, "true")},
			want:    "replicated",
		},
		"not exactly true": {
			reason: "the value must be exactly \"true\": True, yes, 1 and empty are not defaults",
			classes: []storagev1.StorageClass{
				class("a", 0, virt, "True"), class("b", 0, ga, "yes"), class("c", 0, beta, "1"), class("d", 0, ga, ""), class("e", 0, ga, " true"),
			},
		},
		"false": {
			reason:  "an annotation set to false is no default",
			classes: []storagev1.StorageClass{class("a", 0, virt, "false"), class("b", 0, ga, "false")},
		},
		"virt beats GA": {
			reason:  "the virt default wins over a GA default, also a newer one",
			classes: []storagev1.StorageClass{class("ga", 9, ga, "true"), class("virt", 0, virt, "true")},
			want:    "virt",
		},
		"virt beats beta": {
			reason:  "the virt default wins over a beta default",
			classes: []storagev1.StorageClass{class("beta", 9, beta, "true"), class("virt", 0, virt, "true")},
			want:    "virt",
		},
		"GA beats newer beta": {
			reason:  "a GA default beats a newer beta-only one",
			classes: []storagev1.StorageClass{class("ga", 0, ga, "true"), class("beta", 9, beta, "true")},
			want:    "ga",
		},
		// Changed for CDI v1.64.0: CDI never reads the beta annotation
		// (controller/common/util.go getFallbackStorageClass reads only the
		// virt and GA tiers), so a beta-only default is no default and a disk
		// left to the default never renders.
		"beta alone": {
			reason:  "a beta-only default is no default: CDI reads only the virt and GA annotations",
			classes: []storagev1.StorageClass{class("a", 0), class("old", 0, beta, "true")},
		},
		"beta beside a GA false": {
			reason:  "neither a beta \"true\" nor a GA \"false\" makes a default",
			classes: []storagev1.StorageClass{class("old", 0, beta, "true", ga, "false")},
		},
		"virt beats a newer GA": {
			reason:  "the virt tier wins over a GA default created later, whatever the names",
			classes: []storagev1.StorageClass{class("a-ga", 60, ga, "true"), class("z-virt", 0, virt, "true")},
			want:    "z-virt",
		},
		"exactly true in the GA tier": {
			reason:  "only the class whose value is exactly \"true\" is the default, even when older",
			classes: []storagev1.StorageClass{class("new", 9, ga, "TRUE"), class("old", 0, ga, "true")},
			want:    "old",
		},
		"virt false, GA true": {
			reason:  "a class whose virt annotation is false but GA is true is in the GA tier",
			classes: []storagev1.StorageClass{class("both", 0, virt, "false", ga, "true")},
			want:    "both",
		},
		"GA false, beta true": {
			reason:  "a class whose GA annotation is false but beta is true is no default; the GA default is",
			classes: []storagev1.StorageClass{class("mixed", 9, ga, "false", beta, "true"), class("ga", 0, ga, "true")},
			want:    "ga",
		},
		"newest in tier": {
			reason:  "within a tier the newest by creation time wins",
			classes: []storagev1.StorageClass{class("a-old", 0, ga, "true"), class("z-new", 1, ga, "true")},
			want:    "z-new",
		},
		"newest virt": {
			reason:  "the newest rule holds in the virt tier too",
			classes: []storagev1.StorageClass{class("a-old", 0, virt, "true"), class("z-new", 5, virt, "true"), class("ga", 9, ga, "true")},
			want:    "z-new",
		},
		"same time, by name": {
			reason:  "within a tier and the same creation time the first by name wins",
			classes: []storagev1.StorageClass{class("b", 3, ga, "true"), class("a", 3, ga, "true"), class("c", 3, ga, "true")},
			want:    "a",
		},
		"one second newer": {
			reason: "one second newer is newer, whatever the names",
			classes: func() []storagev1.StorageClass {
				late := class("z", 3, ga, "true")
				late.CreationTimestamp = metav1.NewTime(late.CreationTimestamp.Add(time.Second))
				return []storagev1.StorageClass{class("a", 3, ga, "true"), late}
			}(),
			want: "z",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Every order of the list gives the same answer: never list order.
			for _, perm := range permutations(tc.classes) {
				if got := storage.DefaultClass(perm); got != tc.want {
					t.Fatalf("%s: DefaultClass(%v) = %q, want %q", tc.reason, names(perm), got, tc.want)
				}
			}
		})
	}
}

func permutations(in []storagev1.StorageClass) [][]storagev1.StorageClass {
	if len(in) <= 1 {
		return [][]storagev1.StorageClass{append([]storagev1.StorageClass(nil), in...)}
	}
	var out [][]storagev1.StorageClass
	for i := range in {
		rest := append(append([]storagev1.StorageClass(nil), in[:i]...), in[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]storagev1.StorageClass{in[i]}, p...))
		}
	}
	return out
}

func names(cs []storagev1.StorageClass) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}
