package apiserver_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/cozystack/kubernetes-worker-image/adapters/cli"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// planAllEnv names the number of worker disks TestPlanAllScale loads;
// unset, the test is skipped.
const planAllEnv = "WORKER_IMAGE_PLANALL_DISKS"

// TestPlanAllScale measures `plan -A` alone: it loads N worker disks and
// their pools into the real API server as TestScale does (half of the
// disks in one tenant namespace, 50 disks a pool, pools without disks up
// to 1,000, or N/10 from 100,000 disks), then runs plan -A as a process
// WORKER_IMAGE_PLANALL_RUNS times (3 unless set) and logs each run's wall,
// CPU and peak RSS, and the CPU the API server spent meanwhile (which the
// machine's load hardly moves), and their medians. WORKER_IMAGE_PLANALL_BINS, a
// colon-separated list of worker-image binaries, runs each of them in
// turn (interleaved, so that they share the machine's load) in place of
// the one built from this tree. It asserts that every run of every binary
// prints the same plan and exits alike. WORKER_IMAGE_PLANALL_PROFILE=DIR
// runs plan -A once more in-process and writes its CPU profile to
// DIR/cli.pprof and the API server's over the same run to
// DIR/apiserver.pprof. WORKER_IMAGE_PLANALL_HOLD=DIR, before the runs,
// writes the cluster's kubeconfig to DIR/kubeconfig and waits until a file
// DIR/done exists, for runs by hand against the loaded cluster.
//
//	WORKER_IMAGE_PLANALL_DISKS=10000 KUBEBUILDER_ASSETS=… go test ./internal/apiserver -run TestPlanAllScale -v -timeout 60m
func TestPlanAllScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(planAllEnv))
	if n <= 0 {
		t.Skipf("set %s to the number of disks to load", planAllEnv)
	}
	runs := 3
	if r, err := strconv.Atoi(os.Getenv("WORKER_IMAGE_PLANALL_RUNS")); err == nil && r > 0 {
		runs = r
	}
	var bins []string
	if b := os.Getenv("WORKER_IMAGE_PLANALL_BINS"); b != "" {
		bins = strings.Split(b, ":")
	} else {
		bins = []string{workerImage(t)}
	}
	e := apiserver.Get(t)
	e.Cluster(t)
	d := scaleDisks(n)
	began := time.Now()
	load(t, e, d)
	d = fleet.Disks{}
	pools := scalePools(n)
	writePools(t, e, pools)
	t.Logf("%d disks (%d objects) and %d pools written in %v", n, 3*n, pools, time.Since(began).Round(time.Second))

	kc := kubeconfigOf(t, e.Config, "default")
	if dir := os.Getenv("WORKER_IMAGE_PLANALL_HOLD"); dir != "" {
		// The loaded cluster stays up for runs by hand until DIR/done is.
		b, err := os.ReadFile(kc)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "kubeconfig"), b, 0o600))
		t.Logf("holding the cluster: kubeconfig in %s; create %s to go on", dir, filepath.Join(dir, "done"))
		for {
			if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
				break
			}
			time.Sleep(time.Second)
		}
	}
	args := []string{"plan", "-A", "-o", "wide", "--kubeconfig", kc}
	type run struct{ wall, cpu, server, rss time.Duration } // rss in KiB, as a Duration for one sort
	server := apiserverPID(t)
	results := make([][]run, len(bins))
	var first string
	var firstCode int
	for r := range runs {
		for b, bin := range bins {
			cmd := exec.Command(bin, args...)
			var out strings.Builder
			cmd.Stdout = &out
			serverBefore := cpuOf(t, server)
			took, cpu, kb := measured(t, cmd)
			served := cpuOf(t, server) - serverBefore
			results[b] = append(results[b], run{took, cpu, served, time.Duration(kb)})
			t.Logf("run %d of %s: %v wall, %v CPU, peak RSS %d MiB; the API server's CPU %v", r+1, bin,
				took.Round(time.Millisecond), cpu.Round(time.Millisecond), kb>>10, served.Round(time.Millisecond))
			if r == 0 && b == 0 {
				first, firstCode = out.String(), cmd.ProcessState.ExitCode()
				require.GreaterOrEqual(t, strings.Count(first, "\n"), pools, "a line per pool:\n%.2000s", first)
				continue
			}
			require.Equal(t, firstCode, cmd.ProcessState.ExitCode(), "%s exits as the first run", bin)
			require.True(t, first == out.String(), "%s prints the plan of the first run", bin)
		}
	}
	median := func(rs []run, f func(run) time.Duration) time.Duration {
		v := make([]time.Duration, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	loadavg, _ := os.ReadFile("/proc/loadavg")
	for b, bin := range bins {
		rs := results[b]
		t.Logf("plan -A of %d pools among %d disks, %s, median of %d: %v wall, %v CPU, peak RSS %d MiB; the API server's CPU %v (load %s)", pools, n, bin, len(rs),
			median(rs, func(r run) time.Duration { return r.wall }).Round(time.Millisecond),
			median(rs, func(r run) time.Duration { return r.cpu }).Round(time.Millisecond),
			median(rs, func(r run) time.Duration { return r.rss })>>10,
			median(rs, func(r run) time.Duration { return r.server }).Round(time.Millisecond),
			strings.Join(strings.Fields(string(loadavg))[:3], " "))
	}

	if dir := os.Getenv("WORKER_IMAGE_PLANALL_PROFILE"); dir != "" {
		seconds := int(median(results[0], func(r run) time.Duration { return r.wall }).Seconds()) + 2
		server := make(chan error, 1)
		go func() { server <- apiserverProfile(e.Config, seconds, filepath.Join(dir, "apiserver.pprof")) }()
		f, err := os.Create(filepath.Join(dir, "cli.pprof"))
		require.NoError(t, err)
		require.NoError(t, pprof.StartCPUProfile(f))
		var out, errOut bytes.Buffer
		at := time.Now()
		code := cli.Run(args, strings.NewReader(""), &out, &errOut)
		took := time.Since(at)
		pprof.StopCPUProfile()
		require.NoError(t, f.Close())
		require.Equal(t, firstCode, code, "%s", errOut.String())
		require.NoError(t, <-server)
		t.Logf("in-process plan -A under the profiler: %v; profiles in %s", took.Round(time.Millisecond), dir)
	}
}

// apiserverPID is the kube-apiserver this test process started.
func apiserverPID(t *testing.T) int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		comm, rest, ok := strings.Cut(string(b), ") ")
		if f := strings.Fields(rest); ok && strings.HasSuffix(comm, "(kube-apiserver") && len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			return pid
		}
	}
	t.Fatal("no kube-apiserver of this process")
	return 0
}

// cpuOf is the CPU time process pid has used, user and system.
func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	// utime and stime are fields 14 and 15 of stat, 12 and 13 after comm,
	// in clock ticks (100 a second on Linux).
	user, _ := strconv.Atoi(f[11])
	sys, _ := strconv.Atoi(f[12])
	return time.Duration(user+sys) * 10 * time.Millisecond
}

// apiserverProfile writes the API server's CPU profile over the next
// seconds to path.
func apiserverProfile(cfg *rest.Config, seconds int, path string) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = time.Duration(seconds+30) * time.Second
	hc, err := rest.HTTPClientFor(c)
	if err != nil {
		return err
	}
	resp, err := hc.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", strings.TrimSuffix(c.Host, "/"), seconds))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("profile: %s: %s", resp.Status, b)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
