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

// The grant names the chart value of each kind of which an object is
// forbidden, with every object of that kind the release names, as helm
// --set replaces a list; the verdict names the objects, so another
// object forbidden is another verdict; the error unwraps to the API's
// forbidden.
func TestUngrantedGrant(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "b", errors.New("no"))
	u := &ungranted{release: types.NamespacedName{Namespace: "cozy-system", Name: "kubernetes-worker-image"}, value: "catalogRelease",
		objects: []valuesObject{{"Secret", "cozy-system", "b"}, {"ConfigMap", "cozy-system", "a"}, {"Secret", "cozy-system", "c"}}, err: forbidden}
	u.named = append([]valuesObject{{"Secret", "cozy-system", "granted"}}, u.objects...)
	assert.Equal(t, "catalogRelease.valuesFrom.configMaps={a} and catalogRelease.valuesFrom.secrets={granted,b,c}", u.grant(),
		"the Secret already granted stays in the list that replaces the chart's")
	assert.Equal(t, "unverified,ungranted:Secret cozy-system/b, ConfigMap cozy-system/a, Secret cozy-system/c", u.verdict())
	assert.True(t, apierrors.IsForbidden(fmt.Errorf("the catalog: %w", u)))
	var got *ungranted
	assert.True(t, errors.As(fmt.Errorf("wrapped: %w", u), &got))

	one := &ungranted{release: u.release, value: "imageCatalog", objects: u.objects[1:2], named: u.named, err: forbidden}
	assert.Equal(t, "imageCatalog.valuesFrom.configMaps={a}", one.grant(), "neighbour: one kind forbidden, one value; the granted Secrets need none")
	assert.NotEqual(t, u.verdict(), one.verdict())
	assert.LessOrEqual(t, len(u.note("disk-system is planned")), noteLimit, "three objects fit an Event, uncut")
}
