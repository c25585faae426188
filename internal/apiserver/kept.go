package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// loadsName is the ConfigMap, in the default namespace, that records what
// a kept cluster holds: a key per kind of load, its value what was loaded
// and whether the load completed.
const loadsName = "worker-image-loads"

const (
	loading = "loading"
	loaded  = "loaded"
)

// Loaded runs load, which writes objs, unless the cluster's etcd data is
// kept (EtcdDirEnv) and already holds them: kind names the load ("disks",
// "pools"), and objs, as they are before load writes them, say what it
// writes. A kept cluster that holds another load of that kind fails the
// test, since it would measure both; one that holds a load of it begun
// and never completed (a run killed midway) has load run again, which
// must then find some of its objects written.
func (e *Env) Loaded(t testing.TB, kind string, objs []client.Object, load func()) {
	t.Helper()
	if e.kept == "" {
		load()
		return
	}
	what := fingerprint(t, objs)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: loadsName}}
	if err := e.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("read %s: %v", loadsName, err)
	}
	held, state, _ := strings.Cut(cm.Data[kind], "\t")
	switch {
	case held == what && state == loaded:
		t.Logf("%s: %s, already in the cluster kept in %s", kind, what, e.kept)
		return
	case held != "" && held != what:
		t.Fatalf("the cluster kept in %s holds other %s (%s, %s) than this run loads (%s): give this run a directory of its own in %s, or remove that one",
			e.kept, kind, held, state, what, EtcdDirEnv)
	}
	record := func(state string) {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[kind] = what + "\t" + state
		var err error
		if cm.ResourceVersion == "" {
			err = e.Client.Create(ctx, cm)
		} else {
			err = e.Client.Update(ctx, cm)
		}
		if err != nil {
			t.Fatalf("record the %s load in %s: %v", kind, loadsName, err)
		}
	}
	record(loading)
	load()
	record(loaded)
}

// fingerprint names objs: their number and a hash of their JSON, which
// changes when the code that generates them does.
func fingerprint(t testing.TB, objs []client.Object) string {
	h := fnv.New64a()
	enc := json.NewEncoder(h)
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			t.Fatalf("fingerprint %s/%s: %v", o.GetNamespace(), o.GetName(), err)
		}
	}
	return fmt.Sprintf("%d objects, %016x", len(objs), h.Sum64())
}
