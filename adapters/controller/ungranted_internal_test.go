package controller

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// The grant names each kind's chart value with every object of it, as
// helm --set takes a list; the verdict names the objects, so another
// object forbidden is another verdict; the error unwraps to the API's
// forbidden.
func TestUngrantedGrant(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "b", errors.New("no"))
	u := &ungranted{release: types.NamespacedName{Namespace: "cozy-system", Name: "kubernetes-worker-image"}, value: "catalogRelease",
		objects: []valuesObject{{"Secret", "cozy-system", "b"}, {"ConfigMap", "cozy-system", "a"}, {"Secret", "cozy-system", "c"}}, err: forbidden}
	assert.Equal(t, "catalogRelease.valuesFrom.configMaps={a} and catalogRelease.valuesFrom.secrets={b,c}", u.grant())
	assert.Equal(t, "unverified,ungranted:Secret cozy-system/b, ConfigMap cozy-system/a, Secret cozy-system/c", u.verdict())
	assert.True(t, apierrors.IsForbidden(fmt.Errorf("the catalog: %w", u)))
	var got *ungranted
	assert.True(t, errors.As(fmt.Errorf("wrapped: %w", u), &got))

	one := &ungranted{release: u.release, value: "imageCatalog", objects: u.objects[1:2], err: forbidden}
	assert.Equal(t, "imageCatalog.valuesFrom.configMaps={a}", one.grant(), "neighbour: one kind, one value")
	assert.NotEqual(t, u.verdict(), one.verdict())
	assert.LessOrEqual(t, len(u.note("disk-system is planned")), noteLimit, "three objects fit an Event, uncut")
}
