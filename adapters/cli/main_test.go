package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// binary is the worker-image command, built once for the tests that run it
// as a process.
var binary string

func TestMain(m *testing.M) {
	if args := os.Getenv(helmParentEnv); args != "" {
		os.Exit(helmParent(args))
	}
	// In-process runs read the cluster a test names, never the
	// developer's.
	os.Unsetenv("KUBECONFIG")
	if fuzzWorker() {
		// A fuzzing worker runs only the in-process fuzz targets.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "worker-image-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "worker-image")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	build := exec.Command("go", "build", "-o", binary, "./cmd/worker-image")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build worker-image:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// helmParentEnv makes the test binary stand in for Helm 4 running a
// post-renderer plugin: it runs the command its value names (JSON
// arguments) with the plugin's environment, feeds it standard input,
// buffers and drops its standard output and error, as Helm 4's subprocess
// runtime does, and exits with its status.
const helmParentEnv = "WORKER_IMAGE_TEST_HELM_PARENT"

func helmParent(args string) int {
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "HELM_PLUGIN_NAME=worker-image")
	cmd.Stdin = os.Stdin
	var dropped bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dropped, &dropped
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func fuzzWorker() bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			return true
		}
	}
	return false
}

// run is one run of the binary.
type run struct {
	code           int
	stdout, stderr string
}

// exe runs the binary with args and standard input.
func exe(t *testing.T, stdin string, args ...string) run {
	t.Helper()
	return exePath(t, binary, stdin, args...)
}

func exePath(t *testing.T, path, stdin string, args ...string) run {
	t.Helper()
	return exeEnv(t, path, nil, stdin, args...)
}

// exeEnv runs path with env added to the test's environment, less
// KUBECONFIG: a run reads the cluster a test names, never the developer's.
func exeEnv(t *testing.T, path string, env []string, stdin string, args ...string) run {
	t.Helper()
	cmd := exec.Command(path, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "HELM_PLUGIN_NAME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return run{code: code, stdout: out.String(), stderr: errOut.String()}
}

// write writes a file in a test's temporary folder and returns its path.
func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The walkthrough's files, by path, as a user passes them.
var (
	examplePools   = filepath.Join("..", "..", "examples", "cli", "pools.yaml")
	exampleRefused = filepath.Join("..", "..", "examples", "cli", "refused.yaml")
	exampleCatalog = filepath.Join("..", "..", "examples", "cli", "catalog.yaml")
	exampleState   = filepath.Join("..", "..", "examples", "cli", "state.yaml")
)

// allExamplePools writes the walkthrough's pools that plan (demo-md0,
// demo-md1) and its refused one (demo-gpu), in this order, into one file,
// and returns its path.
func allExamplePools(t *testing.T) string {
	t.Helper()
	return write(t, "all-pools.yaml", readExample(t, examplePools)+"---\n"+readExample(t, exampleRefused))
}

func readExample(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
