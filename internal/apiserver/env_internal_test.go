package apiserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAssets(t *testing.T) {
	empty := t.TempDir()
	half := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(half, "kube-apiserver"), nil, 0o755))
	full := t.TempDir()
	for _, b := range []string{"kube-apiserver", "etcd"} {
		require.NoError(t, os.WriteFile(filepath.Join(full, b), nil, 0o755))
	}
	cases := map[string]struct {
		reason  string
		assets  string
		missing string
	}{
		"empty":  {reason: "nothing built: the first binary is named", assets: empty, missing: "kube-apiserver"},
		"half":   {reason: "etcd alone missing is still missing", assets: half, missing: "etcd"},
		"folder": {reason: "a folder of that name is no binary", assets: filepath.Dir(empty), missing: "kube-apiserver"},
		"full":   {reason: "both binaries: the folder is used", assets: full},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBEBUILDER_ASSETS", tc.assets)
			dir, err := Assets()
			if tc.missing == "" {
				require.NoError(t, err, tc.reason)
				assert.Equal(t, tc.assets, dir, tc.reason)
				return
			}
			var missing *MissingError
			require.True(t, errors.As(err, &missing), tc.reason)
			assert.Equal(t, tc.missing, missing.Binary, tc.reason)
			assert.Contains(t, err.Error(), BuildScript, "the way out is named")
		})
	}
}

func TestAssetsDefaultToTheBuildScriptsFolder(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "")
	root, err := repoRoot()
	require.NoError(t, err)
	dir, err := Assets()
	var missing *MissingError
	if errors.As(err, &missing) {
		dir = missing.Dir
	}
	assert.Equal(t, filepath.Join(root, ".cache", "envtest", "bin"), dir)
}

func TestSkipsOnlyForMissingBinariesOutsideCI(t *testing.T) {
	missing := &MissingError{Binary: "etcd", Dir: "/nowhere"}
	cases := map[string]struct {
		reason string
		err    error
		ci     string
		skips  bool
	}{
		"local":        {reason: "a laptop without the binaries skips", err: missing, skips: true},
		"ci":           {reason: "CI without the binaries fails", err: missing, ci: "true"},
		"ci other":     {reason: "CI=false is not CI", err: missing, ci: "false", skips: true},
		"broken":       {reason: "binaries that fail to start fail, even locally", err: errors.New("etcd exited")},
		"broken in ci": {reason: "and in CI", err: errors.New("etcd exited"), ci: "true"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			assert.Equal(t, tc.skips, skips(tc.err), tc.reason)
		})
	}
}

// fatalTB records a Fatalf and ends the call with it, as FailNow would.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(f)
}

// calls runs fn and reports the Fatalf that ended it, if one did.
func (f *fatalTB) calls(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil && r != any(f) {
			panic(r)
		}
		msg = f.msg
	}()
	fn()
	return ""
}

func TestLoadedKeepsWhatALoadWrote(t *testing.T) {
	e := Get(t)
	ctx := context.Background()
	kept := &Env{Client: e.Client, kept: "the kept directory"}
	t.Cleanup(func() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault, Name: loadsName}}
		_ = e.Client.Delete(ctx, cm)
	})
	objs := func(name string) []client.Object {
		return []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "x", Name: name}}}
	}
	runs := 0
	run := func() { runs++ }

	kept.Loaded(t, "things", objs("a"), run)
	kept.Loaded(t, "things", objs("a"), run)
	require.Equal(t, 1, runs, "a completed load is not run again")

	f := &fatalTB{TB: t}
	msg := f.calls(func() { kept.Loaded(f, "things", objs("b"), run) })
	require.Contains(t, msg, "holds other things", "another load of a kind the cluster holds fails")
	require.Contains(t, msg, EtcdDirEnv, "and says the way out")
	require.Equal(t, 1, runs, "and does not load")

	kept.Loaded(t, "more", objs("b"), run)
	require.Equal(t, 2, runs, "a load of another kind runs")

	// A load begun and never completed (its run killed) runs again.
	f = &fatalTB{TB: t}
	require.Contains(t, f.calls(func() { kept.Loaded(f, "unfinished", objs("a"), func() { f.Fatalf("killed") }) }), "killed")
	kept.Loaded(t, "unfinished", objs("a"), run)
	require.Equal(t, 3, runs, "an unfinished load runs again")
	kept.Loaded(t, "unfinished", objs("a"), run)
	require.Equal(t, 3, runs, "and once complete, not again")

	plain := &Env{Client: e.Client}
	plain.Loaded(t, "things", objs("a"), run)
	require.Equal(t, 4, runs, "a cluster that is not kept always loads")
}
