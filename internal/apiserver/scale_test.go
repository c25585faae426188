package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/cozystack/kubernetes-worker-image/adapters/controller"
	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/adapters/webhook"
	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/naming"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// scaleEnv names the number of worker disks TestScale loads; unset, the
// test is skipped (it takes minutes: each disk is three objects written).
const scaleEnv = "WORKER_IMAGE_SCALE_DISKS"

// profileEnv names a file TestScale writes the CPU profile of the
// controller's re-plan of a StorageProfile change to; unset, none.
const profileEnv = "WORKER_IMAGE_SCALE_PROFILE"

// processesEnv, set to "only", leaves out what TestScale measures in its
// own process (the informer caches, the reads through them and the
// controller run in the test): the cluster is loaded, and plan -A, the
// webhook and the controller run as their own processes.
const processesEnv = "WORKER_IMAGE_SCALE_PROCESSES"

// TestScale loads N worker disks (each a DataVolume, its PVC and its
// volume, with what CDI and the driver write on them) into the real API
// server, half of them in one tenant namespace, and reports for an
// informer cache as a manager makes it, through
// controllerruntime.CacheOptions and (up to 20,000 disks) whole: the time
// to sync the three informers, the heap they hold (after a GC) and the
// process's RSS; and the time to read what a pool of the crowded
// namespace needs and plan it, p50 and p99 of 400, with the RSS after,
// read through the cache itself (the pool's own disks, by the disk index)
// and (up to 50,000 disks) through a plain client.Reader over it (the
// namespace's every disk); then, with the disks' pools written (50 disks each, whatever N) and
// pools without disks up to 1,000 (N/10 from 100,000), `plan -A` as a
// process (wall, CPU, peak RSS); then the webhook and the controller,
// each as its own process with the chart's GOMEMLIMIT (processes); then
// the controller in the test over the cluster:
// the time to plan every pool, and from a change of their class's
// StorageProfile to every one planned again. It asserts that every way of
// reading plans the pool alike, that planning leaves the cache's objects
// as they were, that plan -A prints a line per pool, that the controller
// plans every pool, that another class's profile plans none again and
// that their class's plans each once again.
//
//	WORKER_IMAGE_SCALE_DISKS=10000 KUBEBUILDER_ASSETS=… go test ./internal/apiserver -run TestScale -v -timeout 60m
//
// WORKER_IMAGE_SCALE_PROCESSES=only leaves out what is measured in the
// test's own process; WORKER_IMAGE_SCALE_GOENV="GOGC=50;GOMEMLIMIT=280MiB"
// runs the webhook and the controller again with each of those settings.
func TestScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(scaleEnv))
	if n <= 0 {
		t.Skipf("set %s to the number of disks to load", scaleEnv)
	}
	e := apiserver.Get(t)
	e.Cluster(t)
	const namespaces, disksPerPool = scaleNamespaces, scaleDisksPerPool
	d := scaleDisks(n)
	began := time.Now()
	load(t, e, d)
	t.Logf("%d disks (%d objects) written in %v", n, 3*n, time.Since(began).Round(time.Second))

	// A pool of the crowded namespace, of the flavor its disks cloned: its
	// plan reads its own disks among the namespace's n/2.
	capiName, golden := d.PVCs[0].Annotations[naming.PoolAnnotation], d.PVCs[0].Annotations[naming.GoldenAnnotation]
	own := 0
	for i := range d.PVCs {
		if a := d.PVCs[i].Annotations; d.PVCs[i].Namespace == fixtures.TenantNamespace && a[naming.PoolAnnotation] == capiName {
			own++
		}
	}
	id, version, ok := naming.ParseGoldenName(golden)
	require.True(t, ok, golden)
	name := strings.TrimPrefix(capiName, "kubernetes-")
	cluster, _, _ := strings.Cut(name, "-")
	pool := plan.Pool{Namespace: fixtures.TenantNamespace, Name: name, Spec: plan.DefaultPoolSpec(cluster)}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &catalog.Flavor{SchematicID: id, Version: version}}
	require.Equal(t, capiName, naming.PoolCAPIName(pool.Name))
	// The catalog serves the flavors of the disks.
	cat := catalog.Compile(fleet.Catalog(fleet.Size{Goldens: namespaces}))
	d = fleet.Disks{}

	type reading struct {
		name string
		// reader is what the Reader reads through: the cache itself
		// (its disk index), or the cache behind a plain client.Reader
		// (the namespace's every disk).
		reader func(cache.Cache) client.Reader
	}
	indexed := reading{"the cache (pool's disks by index)", func(c cache.Cache) client.Reader { return c }}
	listed := reading{"a client over the cache (namespace listed)", func(c cache.Cache) client.Reader { return struct{ client.Reader }{c} }}
	caches := []struct {
		name     string
		opts     cache.Options
		readings []reading
	}{
		// The slim cache first: the RSS of the second includes what the
		// first left to the runtime.
		{"controllerruntime.CacheOptions", controllerruntime.CacheOptions(), []reading{indexed, listed}},
	}
	if n > 50000 {
		// Past 50,000 disks the namespace's every disk, 400 times, only
		// takes minutes to say what 50,000 said.
		caches[0].readings = caches[0].readings[:1]
	}
	if n <= 20000 {
		caches = append(caches, struct {
			name     string
			opts     cache.Options
			readings []reading
		}{"whole (managedFields stripped)", cache.Options{DefaultTransform: cache.TransformStripManagedFields()}, []reading{listed}})
	}
	inProcess := os.Getenv(processesEnv) != "only"
	if !inProcess {
		caches = nil
	}
	var plans []plan.Result
	for _, tc := range caches {
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		tc.opts.Scheme = apiserver.Scheme()
		c, err := cache.New(e.Config, tc.opts)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Start(ctx) }()
		synced := time.Now()
		for _, o := range []client.Object{&corev1.PersistentVolumeClaim{}, &cdiv1.DataVolume{}, &corev1.PersistentVolume{}} {
			_, err := c.GetInformer(ctx, o)
			require.NoError(t, err)
		}
		require.True(t, c.WaitForCacheSync(ctx))
		took := time.Since(synced)
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)

		// What the cache holds before planning, copied: planning reads the
		// cache's own objects, and must change none of them.
		var pvcsBefore corev1.PersistentVolumeClaimList
		require.NoError(t, c.List(ctx, &pvcsBefore, client.InNamespace(fixtures.TenantNamespace)))

		t.Logf("%s, %d disks: synced in %v, heap %.0f MiB (%.0f B/disk), RSS %s",
			tc.name, n, took.Round(time.Millisecond), heap, heap*(1<<20)/float64(n), rss())
		for _, rd := range tc.readings {
			r := controllerruntime.New(rd.reader(c))
			// A first read, as the webhook's warm-up makes: it adds the
			// disk index to the synced informers.
			_, err := r.Read(ctx, plan.Needs(pool))
			require.NoError(t, err)
			var lat []time.Duration
			var res plan.Result
			for range 400 {
				at := time.Now()
				st, err := r.Read(ctx, plan.Needs(pool))
				require.NoError(t, err)
				res, _ = plan.Plan(pool, cat, state.NewSnapshot(st))
				lat = append(lat, time.Since(at))
			}
			plans = append(plans, res)
			slices.Sort(lat)
			t.Logf("  read+plan through %s of a pool of %d disks among %d: p50 %v p99 %v; RSS after 400: %s",
				rd.name, own, n/2, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond), rss())
		}

		var pvcsAfter corev1.PersistentVolumeClaimList
		require.NoError(t, c.List(ctx, &pvcsAfter, client.InNamespace(fixtures.TenantNamespace)))
		// A cache lists in no fixed order.
		for _, l := range []*corev1.PersistentVolumeClaimList{&pvcsBefore, &pvcsAfter} {
			slices.SortFunc(l.Items, func(a, b corev1.PersistentVolumeClaim) int { return strings.Compare(a.Name, b.Name) })
		}
		require.True(t, equality.Semantic.DeepEqual(pvcsBefore.Items, pvcsAfter.Items), "planning changed the cache's PVCs")
		cancel()
		require.NoError(t, <-done)
	}
	for _, p := range plans[min(1, len(plans)):] {
		require.Equal(t, plans[0].Outcome, p.Outcome)
		require.Equal(t, plans[0].Warnings, p.Warnings)
		require.Equal(t, plans[0].Refusals, p.Refusals)
		require.Equal(t, plans[0].StorageClass, p.StorageClass)
	}
	if len(plans) > 0 {
		var reasons []string
		for _, w := range plans[0].Warnings {
			reasons = append(reasons, "warning "+string(w.Reason))
		}
		for _, f := range plans[0].Refusals {
			reasons = append(reasons, "refusal "+string(f.Reason))
		}
		t.Logf("the pool's plan: %s on %s %v", plans[0].Outcome, plans[0].StorageClass.Name, reasons)
	}

	// plan -A, the CLI as its own process: the disks' pools, named and
	// placed as their disks name them (disksPerPool disks each), and
	// pools without disks beside them up to 1,000 (from 100,000 disks, a
	// tenth of the disks), every one a clone of the cluster's golden on
	// replicated, against the whole cluster.
	pools := scalePools(n)
	writePools(t, e, pools)
	bin := workerImage(t)
	cmd := exec.Command(bin, "plan", "-A", "-o", "wide", "--kubeconfig", kubeconfigOf(t, e.Config, "default"))
	var out strings.Builder
	cmd.Stdout = &out
	took, cpu, kb := measured(t, cmd)
	lines := strings.Count(out.String(), "\n")
	require.GreaterOrEqual(t, lines, pools, "a line per pool:\n%.2000s", out.String())
	t.Logf("plan -A of %d pools (%d of %d disks each) among %d disks: %v wall, %v CPU, peak RSS %d MiB", pools, min(pools, n/disksPerPool), disksPerPool, n, took.Round(time.Millisecond),
		cpu.Round(time.Millisecond), kb>>10)

	processes(t, e, bin, pools, n)
	if inProcess {
		replan(t, e, pools)
	}
}

// The fleets the scale tests load: disks and pools spread over
// scaleNamespaces namespaces, scaleDisksPerPool disks a pool.
const scaleNamespaces, scaleDisksPerPool = 20, 50

// scaleDisks is n served worker disks, each annotated with its pool. Half
// of them are in the pool's namespace (fixtures.TenantNamespace): a reader
// without the disk index reads them all for one pool there. Each pool has
// scaleDisksPerPool disks whatever n (disk i is of namespace
// i%scaleNamespaces and its flavor), so that an admission's cost says the
// namespace's size, not its pool's.
func scaleDisks(n int) fleet.Disks {
	d := fleet.ServedDisks(n, scaleNamespaces)
	for i := range d.PVCs {
		pool := naming.PoolCAPIName(fleet.PoolName(i%scaleNamespaces, i/scaleNamespaces/scaleDisksPerPool))
		d.PVCs[i].Annotations[naming.PoolAnnotation], d.DataVolumes[i].Annotations[naming.PoolAnnotation] = pool, pool
		if i%2 == 0 {
			d.PVCs[i].Namespace, d.DataVolumes[i].Namespace = fixtures.TenantNamespace, fixtures.TenantNamespace
			d.Volumes[i].Spec.ClaimRef.Namespace = fixtures.TenantNamespace
		}
	}
	return d
}

// scalePools is the number of pools beside n disks: 1,000, or from
// 100,000 disks a tenth of the disks.
func scalePools(n int) int {
	if n >= 100000 {
		return n / 10
	}
	return 1000
}

// writePools writes n pools, named and placed as scaleDisks names their
// disks' pools (the first n/scaleDisksPerPool have disks), every one a
// clone of the cluster's golden on replicated.
func writePools(t *testing.T, e *apiserver.Env, n int) {
	t.Helper()
	var objs []client.Object
	for i := range n {
		k, j := i%scaleNamespaces, i/scaleNamespaces
		ns := fleet.Namespace(k)
		if k%2 == 0 {
			ns = fixtures.TenantNamespace
		}
		if i < scaleNamespaces {
			e.Namespace(t, ns)
		}
		spec := builtin(nil)
		spec["cluster"] = fmt.Sprintf("c%04d", k)
		objs = append(objs, kubernetesNodes(ns, fleet.PoolName(k, j), spec))
	}
	e.Loaded(t, "pools", objs, func() { createAll(t, e, objs) })
}

// replan runs the controller over the loaded cluster and reports the time
// from its start to every one of the pools planned, and from a change of
// the pools' class's StorageProfile to every one of them planned again.
// It asserts that a change of another class's profile plans none again,
// and that the pools' class's plans every one. The controller reads the
// catalog as the shipped one does, from the catalog release (a release of
// the catalog's defaults, made here), not back from the goldens.
func replan(t *testing.T, e *apiserver.Env, pools int) {
	helmReleasesServed(t, e)
	release := webhook.DefaultCatalogRelease()
	cat := helmRelease(release.Namespace, release.Name, map[string]any{"values": map[string]any{"enabled": true}})
	if err := e.Client.Create(context.Background(), cat); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create the catalog release: %v", err)
	}
	removed(t, e, cat)
	reg := prometheus.NewRegistry()
	mgr, err := ctrl.NewManager(e.Config, ctrl.Options{
		Scheme:  apiserver.Scheme(),
		Cache:   controllerruntime.CacheOptions(),
		Client:  client.Options{Cache: &client.CacheOptions{Unstructured: true}},
		Metrics: metricsserver.Options{BindAddress: "0"},
		// At 100,000 disks on a loaded machine the informers take longer
		// than the default two minutes to sync.
		Controller: config.Controller{CacheSyncTimeout: 10 * time.Minute},
	})
	require.NoError(t, err)
	require.NoError(t, controller.Setup(mgr, controller.Options{CatalogRelease: release, Registerer: reg}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	require.True(t, until(5*time.Minute, func() bool { return sum(t, reg, "worker_image_pools", "", "") >= float64(pools) }),
		"the controller plans every pool: %v of %d", sum(t, reg, "worker_image_pools", "", ""), pools)
	t.Logf("controller: %d pools planned %v after its start; RSS of the test process %s", pools, time.Since(began).Round(time.Millisecond), rss())
	require.Equal(t, float64(pools), sum(t, reg, "worker_image_pools", "outcome", "planned"), "every pool is planned")

	strategy := func(class string, s cdiv1.CDICloneStrategy) {
		o := &cdiv1.StorageProfile{ObjectMeta: metav1.ObjectMeta{Name: class}}
		raw := fmt.Sprintf(`{"status":{"cloneStrategy":%q}}`, s)
		require.NoError(t, e.Client.Status().Patch(context.Background(), o, client.RawPatch(types.MergePatchType, []byte(raw))))
	}
	replans := func() float64 {
		return sum(t, reg, "worker_image_replan_duration_seconds", "trigger", "StorageProfile")
	}
	// Another class's profile: no pool is of it, none is planned again.
	strategy(fixtures.LocalClass, cdiv1.CloneStrategyCsiClone)
	defer strategy(fixtures.LocalClass, cdiv1.CloneStrategyHostAssisted)
	time.Sleep(3 * time.Second)
	other := replans()
	t.Logf("controller: another class's StorageProfile changed: %v planned again in 3 s", other)
	require.Zero(t, other, "another class's profile plans no pool again")

	if path := os.Getenv(profileEnv); path != "" {
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, pprof.StartCPUProfile(f))
		defer func() {
			pprof.StopCPUProfile()
			require.NoError(t, f.Close())
		}()
	}
	at := time.Now()
	strategy(fixtures.ReplicatedClass, cdiv1.CloneStrategyHostAssisted)
	defer strategy(fixtures.ReplicatedClass, cdiv1.CloneStrategyCsiClone)
	require.True(t, until(time.Minute, func() bool { return replans()-other >= float64(pools) }),
		"the class's profile plans every pool of it again: %v of %d", replans()-other, pools)
	t.Logf("controller: a StorageProfile change re-planned the %d pools of its class in %v",
		pools, time.Since(at).Round(time.Millisecond))
	time.Sleep(time.Second)
	require.Equal(t, float64(pools), replans(), "each pool planned again once")
}

// sum is the sum of the series of metric name in reg (of a histogram, its
// samples), of those whose label is value when label is set.
func sum(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	families, err := reg.Gather()
	require.NoError(t, err)
	total := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() != value {
					continue series
				}
			}
			switch {
			case m.Gauge != nil:
				total += m.Gauge.GetValue()
			case m.Histogram != nil:
				total += float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return total
}

// measured runs cmd to its end and returns its wall time, its CPU and
// its peak resident set in KiB. An exit status other than 0 is the
// caller's to judge; a command that cannot run fails the test.
func measured(t *testing.T, cmd *exec.Cmd) (wall, cpu time.Duration, peakKiB int) {
	t.Helper()
	at := time.Now()
	require.NoError(t, cmd.Start())
	peak := make(chan int)
	go func() { peak <- peakRSS(cmd.Process.Pid) }()
	err := cmd.Wait()
	wall = time.Since(at)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", cmd.Args, err)
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), <-peak
}

// peakRSS is the high-water mark of a running process's resident set, in
// KiB, as /proc last showed it before the process ended. The rusage of a
// child does not say it: its maxrss starts from the parent's resident set
// at the fork, which for this test is the caches' hundreds of MiB.
func peakRSS(pid int) int {
	kb := 0
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			return kb
		}
		for line := range strings.Lines(string(b)) {
			var v int
			if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &v); err == nil {
				kb = max(kb, v)
			}
			if strings.HasPrefix(line, "State:") && strings.Contains(line, "zombie") {
				return kb
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// createAll creates objs, 16 at a time; those that exist are left.
func createAll(t *testing.T, e *apiserver.Env, objs []client.Object) {
	t.Helper()
	jobs := make(chan client.Object)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for o := range jobs {
				err := e.Client.Create(context.Background(), o)
				if err != nil && !apierrors.IsAlreadyExists(err) {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("create %s/%s: %w", o.GetNamespace(), o.GetName(), err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, o := range objs {
		jobs <- o
	}
	close(jobs)
	wg.Wait()
	require.NoError(t, first)
}

// load writes the disks, 16 at a time; a second run finds them written.
func load(t *testing.T, e *apiserver.Env, d fleet.Disks) {
	t.Helper()
	var objs []client.Object
	seen := map[string]bool{}
	for i := range d.PVCs {
		for _, o := range []client.Object{&d.PVCs[i], &d.DataVolumes[i], &d.Volumes[i]} {
			if ns := o.GetNamespace(); ns != "" && !seen[ns] {
				seen[ns] = true
				e.Namespace(t, ns)
			}
			o.SetResourceVersion("")
			o.SetUID("")
			o.SetManagedFields(nil)
			o.SetCreationTimestamp(metav1.Time{})
			objs = append(objs, o)
		}
	}
	for i := range d.Volumes {
		d.Volumes[i].Spec.ClaimRef.UID, d.Volumes[i].Spec.ClaimRef.ResourceVersion = "", ""
	}
	e.Loaded(t, "disks", objs, func() { createAll(t, e, objs) })
}

// rss is the process's resident set, from /proc.
func rss() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		var kb int
		if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &kb); err == nil {
			return fmt.Sprintf("%d MiB", kb/1024)
		}
	}
	return "unknown"
}
