package apiserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/cozystack/kubernetes-worker-image/adapters/controllerruntime"
	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
	"github.com/cozystack/kubernetes-worker-image/internal/fixtures"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"github.com/cozystack/kubernetes-worker-image/plan/state"
)

// scaleEnv names the number of worker disks TestScale loads; unset, the
// test is skipped (it takes minutes: each disk is three objects written).
const scaleEnv = "WORKER_IMAGE_SCALE_DISKS"

// TestScale loads N worker disks (each a DataVolume, its PVC and its
// volume, with what CDI and the driver write on them) into the real API
// server, half of them in one tenant namespace, and reports for an
// informer cache as a manager makes it, whole and through
// controllerruntime.CacheOptions: the time to sync the three informers,
// the heap they hold (after a GC) and the process's RSS; and the time to
// read what a pool of the crowded namespace needs and plan it, p50 and p99
// of 200; then, with 1,000 pools written, `plan -A` as a process (wall,
// CPU, peak RSS). It asserts only that plans over the slim cache equal
// plans over the whole one, that planning leaves the cache's objects as
// they were, and that plan -A prints a line per pool.
//
//	WORKER_IMAGE_SCALE_DISKS=10000 KUBEBUILDER_ASSETS=… go test ./internal/apiserver -run TestScale -v -timeout 60m
func TestScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(scaleEnv))
	if n <= 0 {
		t.Skipf("set %s to the number of disks to load", scaleEnv)
	}
	e := apiserver.Get(t)
	e.Cluster(t)
	const namespaces = 20
	d := fleet.ServedDisks(n, namespaces)
	// Half of the disks in the pool's namespace: an admission there reads
	// them all.
	for i := range d.PVCs {
		if i%2 == 0 {
			d.PVCs[i].Namespace, d.DataVolumes[i].Namespace = fixtures.TenantNamespace, fixtures.TenantNamespace
			d.Volumes[i].Spec.ClaimRef.Namespace = fixtures.TenantNamespace
		}
	}
	began := time.Now()
	load(t, e, d)
	t.Logf("%d disks (%d objects) written in %v", n, 3*n, time.Since(began).Round(time.Second))
	d = fleet.Disks{}

	pool := plan.Pool{Namespace: fixtures.TenantNamespace, Name: fixtures.PoolName, Spec: plan.DefaultPoolSpec(fixtures.ClusterName)}
	pool.Spec.OSImage = &plan.OSImage{Builtin: &plan.Builtin{}}
	var plans [2]plan.Result
	for i, tc := range []struct {
		name string
		opts cache.Options
	}{
		// The slim cache first: the RSS of the second includes what the
		// first left to the runtime.
		{"controllerruntime.CacheOptions", controllerruntime.CacheOptions()},
		{"whole (managedFields stripped)", cache.Options{DefaultTransform: cache.TransformStripManagedFields()}},
	} {
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

		r := controllerruntime.New(c)
		var lat []time.Duration
		var res plan.Result
		for range 200 {
			at := time.Now()
			st, err := r.Read(ctx, plan.Needs(pool))
			require.NoError(t, err)
			res, err = plan.Plan(pool, fleet.DefaultCatalog(), state.NewSnapshot(st))
			require.NoError(t, err)
			lat = append(lat, time.Since(at))
		}
		plans[i] = res
		slices.Sort(lat)
		t.Logf("%s, %d disks: synced in %v, heap %.0f MiB (%.0f B/disk), RSS %s; read+plan of a pool among %d disks: p50 %v p99 %v",
			tc.name, n, took.Round(time.Millisecond), heap, heap*(1<<20)/float64(n), rss(), n/2,
			lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond))

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
	require.Equal(t, plans[0].Outcome, plans[1].Outcome)
	require.Equal(t, plans[0].Warnings, plans[1].Warnings)
	require.Equal(t, plans[0].Refusals, plans[1].Refusals)

	// plan -A, the CLI as its own process: 1,000 pools over the
	// namespaces, every one a clone, against the whole cluster.
	const pools = 1000
	var objs []client.Object
	for i := range pools {
		ns := fmt.Sprintf("tenant-%02d", i%namespaces)
		if i%2 == 0 {
			ns = fixtures.TenantNamespace
		}
		if i < namespaces {
			e.Namespace(t, ns)
		}
		objs = append(objs, kubernetesNodes(ns, fmt.Sprintf("scale-md%04d", i), builtin(nil)))
	}
	createAll(t, e, objs)
	bin := workerImage(t)
	at := time.Now()
	cmd := exec.Command(bin, "plan", "-A", "-o", "wide", "--kubeconfig", kubeconfigOf(t, e.Config, "default"))
	out, err := cmd.Output()
	took := time.Since(at)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("plan -A: %v", err)
	}
	lines := strings.Count(string(out), "\n")
	require.GreaterOrEqual(t, lines, pools, "a line per pool:\n%.2000s", out)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	maxRSS := "unknown"
	if ru != nil {
		maxRSS = fmt.Sprintf("%d MiB", ru.Maxrss/1024)
	}
	t.Logf("plan -A of %d pools among %d disks: %v wall, %v CPU, peak RSS %s", pools, n, took.Round(time.Millisecond),
		(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Round(time.Millisecond), maxRSS)
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
	createAll(t, e, objs)
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
