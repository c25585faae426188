package stateindex

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cozystack/kubernetes-worker-image/plan/state/capk"
)

func TestNewestFirst(t *testing.T) {
	at := func(name string, hour int) *capk.KubevirtMachineTemplate {
		t := &capk.KubevirtMachineTemplate{}
		t.Name = name
		t.CreationTimestamp = metav1.Unix(int64(hour)*3600, 0)
		return t
	}
	old, newer, tie := at("kubernetes-demo-md0-aaaaaa", 1), at("kubernetes-demo-md0-bbbbbb", 2), at("kubernetes-demo-md0-000000", 2)
	assert.Negative(t, newestFirst(newer, old), "the newer first")
	assert.Positive(t, newestFirst(old, newer))
	assert.Negative(t, newestFirst(tie, newer), "a tie on time goes by name")
	assert.Zero(t, newestFirst(old, old))
}
