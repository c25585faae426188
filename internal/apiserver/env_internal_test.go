package apiserver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

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
