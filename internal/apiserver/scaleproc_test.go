package apiserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/adapters/chart"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

// chartRuntime is the Go runtime's environment the chart gives component
// ("webhook" or "controller"): GOMEMLIMIT, its container's memory limit in
// bytes as the Downward API's resourceFieldRef writes it, and GOGC when
// the chart sets one.
func chartRuntime(t *testing.T, component string) []string {
	t.Helper()
	raw, err := fs.ReadFile(chart.Files(), "values.yaml")
	require.NoError(t, err)
	type values struct {
		Resources struct {
			Limits map[string]string `json:"limits"`
		} `json:"resources"`
		GOGC string `json:"gogc"`
	}
	var v struct{ Webhook, Controller values }
	require.NoError(t, yaml.Unmarshal(raw, &v))
	c := map[string]values{"webhook": v.Webhook, "controller": v.Controller}[component]
	q, err := resource.ParseQuantity(c.Resources.Limits["memory"])
	require.NoError(t, err, "the chart's %s memory limit", component)
	env := []string{"GOMEMLIMIT=" + strconv.FormatInt(q.Value(), 10)}
	if c.GOGC != "" {
		env = append(env, "GOGC="+c.GOGC)
	}
	return env
}

// memory is a process's resident set now (VmRSS) and at its peak (VmHWM),
// in MiB, from /proc.
func memory(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	var rss, hwm int
	for line := range strings.Lines(string(b)) {
		_, _ = fmt.Sscanf(line, "VmRSS: %d kB", &rss)
		_, _ = fmt.Sscanf(line, "VmHWM: %d kB", &hwm)
	}
	return fmt.Sprintf("RSS %d MiB (peak %d MiB)", rss>>10, hwm>>10)
}

// scrape is the sum of the samples of metric name (a histogram's _count,
// say) that the metrics endpoint url serves, of those whose labels
// include label (`trigger="StorageProfile"`) when it is set; -1 when the
// endpoint does not answer.
func scrape(url, name, label string) float64 {
	resp, err := http.Get(url)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	total := 0.0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		series, value, ok := strings.Cut(line, " ")
		metric, labels, _ := strings.Cut(series, "{")
		if !ok || metric != name || (label != "" && !strings.Contains(labels, label)) {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			total += v
		}
	}
	return total
}

// processes runs `worker-image webhook` and then `worker-image controller`
// over the loaded cluster, each as its own process with the runtime
// settings the chart gives it (chartRuntime), and reports for each the time from its start to ready
// (the webhook: its readiness, which waits for its informers to sync; the
// controller: every one of the pools planned, as its metrics say) and its
// resident set then; for the webhook, p50 and p99 of 400 AdmissionReviews
// of a pool of the crowded namespace, one after another over HTTPS as the
// API server sends them, and its resident set after; for the controller,
// the time from a change of the pools' class's StorageProfile to every one
// planned again, and its resident set after. It asserts that every
// admission allows the pool (its plan clones the cluster's golden) and
// that the controller plans every pool and each again once.
func processes(t *testing.T, e *apiserver.Env, bin string, pools, disks int) {
	settings := [][]string{nil}
	for _, s := range strings.Split(os.Getenv(goEnv), ";") {
		if s = strings.TrimSpace(s); s != "" {
			settings = append(settings, strings.Fields(s))
		}
	}
	for _, more := range settings {
		webhookProcess(t, e, bin, disks, more)
	}
	for _, more := range settings {
		controllerProcess(t, e, bin, pools, more)
	}
}

// goEnv names more settings of the Go runtime to run the webhook and the
// controller with, beside the chart's: each a list of assignments
// ("GOGC=50 GOMEMLIMIT=300MiB"), separated by semicolons.
const goEnv = "WORKER_IMAGE_SCALE_GOENV"

// runtimeEnv is the environment the chart gives component, with more
// over it, and how the figures name it.
func runtimeEnv(t *testing.T, component string, more []string) ([]string, string) {
	chart := chartRuntime(t, component)
	name := strings.Join(chart, " ") + " (the chart's)"
	if len(more) > 0 {
		name += " and " + strings.Join(more, " ")
	}
	return append(chart, more...), name
}

// webhookProcess runs the webhook with the chart's runtime settings and
// more; see processes.
func webhookProcess(t *testing.T, e *apiserver.Env, bin string, disks int, more []string) {
	// The pool of the crowded namespace whose disks are the first's.
	pool := builtin(nil)
	pool["cluster"] = "c0000"
	review := reviewOf(t, admissionv1.Create, kubernetesNodes(fixtures.TenantNamespace, fleet.PoolName(0, 0), pool), nil)

	env, name := runtimeEnv(t, "webhook", more)
	began := time.Now()
	pprof, paddr := pprofArgs(t)
	w := launchCommandEnv(t, e, bin, env, append([]string{"--catalog-release", ""}, pprof...)...)
	ready := func(url string) bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	profiled := cpuProfiles(t, paddr, profileName("webhook", "sync", more), func() bool { return ready(w.health) })
	require.True(t, untilEvery(10*time.Minute, processPoll, func() bool { return ready(w.health) }), "the webhook is never ready: %s", w.stderr.String())
	t.Logf("webhook process, %s: ready %v after its start, %s", name, time.Since(began).Round(time.Millisecond), memory(t, w.cmd.Process.Pid))
	<-profiled
	heapProfile(t, paddr, profileName("webhook", "ready", more))
	var lat []time.Duration
	for i := range 400 {
		at := time.Now()
		resp, err := w.client.Post("https://"+w.addr+"/validate-kubernetesnodes", "application/json", bytes.NewReader(review))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		lat = append(lat, time.Since(at))
		require.NoError(t, err)
		var answer admissionv1.AdmissionReview
		require.NoError(t, json.Unmarshal(body, &answer), "%s", body)
		require.NotNil(t, answer.Response, "%s", body)
		require.True(t, answer.Response.Allowed, "admission %d: the pool clones the cluster's golden: %s", i, body)
	}
	slices.Sort(lat)
	t.Logf("webhook process: 400 admissions of a pool among %d disks of its namespace, over HTTPS: p50 %v p99 %v max %v; %s",
		disks/2, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond), memory(t, w.cmd.Process.Pid))
	heapProfile(t, paddr, profileName("webhook", "after", more))
	require.NoError(t, w.cmd.Process.Kill())
	<-w.exited
}

// controllerProcess runs the controller with the chart's runtime settings
// and more; see processes.
func controllerProcess(t *testing.T, e *apiserver.Env, bin string, pools int, more []string) {
	env, name := runtimeEnv(t, "controller", more)
	metrics, health := freeAddress(t), freeAddress(t)
	pprof, paddr := pprofArgs(t)
	cmd := exec.Command(bin, append([]string{"controller", "--kubeconfig", kubeconfig(t, e.Config), "--leader-elect=false", "--catalog-release", "",
		"--metrics-bind-address", metrics, "--health-probe-bind-address", health}, pprof...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	began := time.Now()
	require.NoError(t, cmd.Start())
	url := "http://" + metrics + "/metrics"
	profiled := cpuProfiles(t, paddr, profileName("controller", "plan", more), func() bool { return scrape(url, "worker_image_pools", "") >= float64(pools) })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	require.True(t, untilEvery(10*time.Minute, processPoll, func() bool { return scrape(url, "worker_image_pools", "") >= float64(pools) }),
		"the controller plans every pool: %v of %d: %.4000s", scrape(url, "worker_image_pools", ""), pools, stderr.String())
	t.Logf("controller process, %s: %d pools planned %v after its start, %s",
		name, pools, time.Since(began).Round(time.Millisecond), memory(t, cmd.Process.Pid))
	<-profiled
	heapProfile(t, paddr, profileName("controller", "planned", more))
	require.Equal(t, float64(pools), scrape(url, "worker_image_pools", `outcome="planned"`), "every pool is planned")

	replans := func() float64 {
		return scrape(url, "worker_image_replan_duration_seconds_count", `trigger="StorageProfile"`)
	}
	before := replans()
	o := &cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: fixtures.ReplicatedClass}}
	patch := func(s cdiv1.CDICloneStrategy) {
		raw := fmt.Sprintf(`{"status":{"cloneStrategy":%q}}`, s)
		require.NoError(t, e.Client.Status().Patch(context.Background(), o, client.RawPatch(types.MergePatchType, []byte(raw))))
	}
	profiled = cpuProfiles(t, paddr, profileName("controller", "replan", more), func() bool { return replans()-before >= float64(pools) })
	at := time.Now()
	patch(cdiv1.CloneStrategyHostAssisted)
	defer patch(cdiv1.CloneStrategyCsiClone)
	require.True(t, untilEvery(5*time.Minute, processPoll, func() bool { return replans()-before >= float64(pools) }),
		"the class's profile plans every pool of it again: %v of %d", replans()-before, pools)
	dropped := func(cause string) float64 {
		return scrape(url, "worker_image_events_dropped_total", `cause="`+cause+`"`)
	}
	t.Logf("controller process: a StorageProfile change re-planned the %d pools of its class in %v; %s; Events dropped so far: QueueFull %v, Rejected %v, Unreachable %v",
		pools, time.Since(at).Round(time.Millisecond), memory(t, cmd.Process.Pid), dropped("QueueFull"), dropped("Rejected"), dropped("Unreachable"))
	<-profiled
	heapProfile(t, paddr, profileName("controller", "replanned", more))
}

// heapEnv names a folder TestScale writes heap profiles (inuse, after a
// GC) of the webhook and controller processes to, at each point it
// reports their resident set: webhook-ready.pb.gz, webhook-after.pb.gz,
// controller-planned.pb.gz, controller-replanned.pb.gz (with a suffix
// for each further runtime setting), and CPU profiles of the webhook from
// its start to ready, of the controller from its start to every pool
// planned and from the StorageProfile change to every pool planned again
// (cpuProfiles); unset, none.
const heapEnv = "WORKER_IMAGE_SCALE_HEAP"

// pprofArgs are the flags that make a process serve its profiles, and
// where, when heapEnv is set.
func pprofArgs(t *testing.T) (args []string, addr string) {
	if os.Getenv(heapEnv) == "" {
		return nil, ""
	}
	addr = freeAddress(t)
	return []string{"--pprof-bind-address", addr}, addr
}

// heapProfile writes the heap profile the process serving pprof at addr
// gives after a GC to the folder heapEnv names, as name.pb.gz; nothing
// when addr is "".
func heapProfile(t *testing.T, addr, name string) {
	if addr == "" {
		return
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?gc=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	path := filepath.Join(os.Getenv(heapEnv), name+".pb.gz")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	// The runtime's own account of the process's memory, beside it.
	resp, err = http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	stats, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var held []string
	for line := range strings.Lines(string(stats)) {
		for _, k := range []string{"HeapAlloc", "HeapInuse", "HeapIdle", "HeapReleased", "NextGC", "Sys", "Stack"} {
			if v, ok := strings.CutPrefix(line, "# "+k+" = "); ok {
				if n, err := strconv.ParseUint(strings.Fields(v)[0], 10, 64); err == nil {
					held = append(held, fmt.Sprintf("%s %d MiB", k, n>>20))
				}
			}
		}
	}
	t.Logf("heap profile: %s; %s", path, strings.Join(held, ", "))
}

// cpuWindow is how long each CPU profile cpuProfiles takes lasts.
const cpuWindow = 2 * time.Second

// cpuProfiles takes CPU profiles of the process serving pprof at addr, one
// after another from when it first answers, each cpuWindow long, until
// done holds, and writes them to the folder heapEnv names as
// name-cpu-N.pb.gz (`go tool pprof` merges those it is given). The
// channel closes once the last is written: the process's later work (the
// admissions) is in none. Nothing when addr is "".
func cpuProfiles(t *testing.T, addr, name string, done func() bool) <-chan struct{} {
	written := make(chan struct{})
	if addr == "" {
		close(written)
		return written
	}
	go func() {
		defer close(written)
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(cpuWindow/time.Second))
		for n := 0; n < 1000; {
			resp, err := http.Get(url)
			if err != nil {
				// Not serving yet.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Logf("cpu profile %s %d: %v %s", name, n, err, b)
				return
			}
			if err := os.WriteFile(filepath.Join(os.Getenv(heapEnv), fmt.Sprintf("%s-cpu-%03d.pb.gz", name, n)), b, 0o644); err != nil {
				t.Logf("cpu profile %s %d: %v", name, n, err)
				return
			}
			n++
			if done() {
				t.Logf("cpu profiles: %s, %d of %v each", filepath.Join(os.Getenv(heapEnv), name+"-cpu-*.pb.gz"), n, cpuWindow)
				return
			}
		}
	}()
	return written
}

// profileName is the name of a profile of component at point, with the
// runtime settings more.
func profileName(component, point string, more []string) string {
	name := component + "-" + point
	for _, m := range more {
		name += "-" + strings.NewReplacer("=", "", "/", "").Replace(m)
	}
	return name
}

// until waits for f to hold, polling every 10 ms, for at most limit.
func until(limit time.Duration, f func() bool) bool {
	return untilEvery(limit, 10*time.Millisecond, f)
}

// processPoll is how often the figures of a process are polled: its
// readiness (each check of it a TLS handshake with its webhook server)
// and its metrics (each scrape a rendering of them all) cost the process
// CPU its sync or re-plan would otherwise have, at 100 polls a second
// about a tenth of the webhook's sync. Its figures are as exact as it is
// short.
const processPoll = 50 * time.Millisecond

// untilEvery waits for f to hold, polling every interval, for at most
// limit.
func untilEvery(limit, interval time.Duration, f func() bool) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(interval) {
		if f() {
			return true
		}
	}
	return false
}
