package controller

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the controller's Prometheus metrics. Every label takes its
// values from a fixed set (outcomes, the planner's reasons, import phases,
// the kinds that trigger a re-plan), so their number stays bounded
// whatever the cluster holds.
type metrics struct {
	pools            *prometheus.GaugeVec
	warnings         *prometheus.GaugeVec
	goldens          *prometheus.GaugeVec
	hostAssisted     prometheus.Gauge
	replan           *prometheus.HistogramVec
	planFailures     prometheus.Counter
	disks            *prometheus.GaugeVec
	diskWarnings     *prometheus.GaugeVec
	diskHostAssisted prometheus.Gauge
	eventsDropped    *prometheus.CounterVec
	collectorList    []prometheus.Collector
}

func newMetrics() *metrics {
	m := &metrics{
		pools: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "worker_image_pools",
			Help: "Worker pools by the outcome of their plan (planned, unverified: planned without reading a kind its guards need, or against a catalog whose spec.valuesFrom objects this identity may not get, or refused) and its reason: Planned, Unverified, or the first refusal's reason.",
		}, []string{"outcome", "reason"}),
		warnings: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "worker_image_pool_warnings",
			Help: "Worker pools whose plan warns, by the warning's reason.",
		}, []string{"reason"}),
		goldens: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "worker_image_goldens",
			Help: "Goldens of the catalog by phase: Populated, Importing, Stalled, Failed, Absent or Unknown (not observed); while the catalog release's values may not be read, the goldens the cluster holds.",
		}, []string{"phase"}),
		hostAssisted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "worker_image_predicted_host_assisted_clones",
			Help: "Worker pools whose next disk CDI would copy host-assisted (over the pod network) instead of cloning it in the storage: refused, or warned where the cause is not proven, HostAssistedClone.",
		}),
		replan: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "worker_image_replan_duration_seconds",
			Help:    "Time from a change that can move a pool's or a VM disk's verdict, as the controller's cache saw it, to it planned again, by the kind that changed (ValuesFrom: a ConfigMap or Secret a catalog release's spec.valuesFrom names).",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30},
		}, []string{"trigger"}),
		planFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "worker_image_plan_read_failures_total",
			Help: "Plans that could not read the cluster (a timeout, a cache not synced) and were requeued.",
		}),
		disks: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "worker_image_vm_disks",
			Help: "VM disks (VMDisks and vm-disk HelmReleases) by the outcome of their plan (planned, unverified, as for pools, or refused) and its reason: Planned, Unverified, or the first refusal's reason.",
		}, []string{"outcome", "reason"}),
		diskWarnings: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "worker_image_vm_disk_warnings",
			Help: "VM disks whose plan warns, by the warning's reason.",
		}, []string{"reason"}),
		diskHostAssisted: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "worker_image_vm_disk_predicted_host_assisted_clones",
			Help: "VM disks not yet created whose DataVolume CDI would copy host-assisted (over the pod network) instead of cloning it in the storage: refused, or warned, HostAssistedClone.",
		}),
		eventsDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "worker_image_events_dropped_total",
			Help: "Events recorded on pools and VM disks and never written, by cause: QueueFull (more Events waited to be written than the queue holds; the oldest was dropped), Rejected (the API server refused it), Unreachable (the API server failed it transiently every time it was tried).",
		}, []string{"cause"}),
	}
	m.collectorList = []prometheus.Collector{m.pools, m.warnings, m.goldens, m.hostAssisted, m.replan, m.planFailures,
		m.disks, m.diskWarnings, m.diskHostAssisted, m.eventsDropped}
	return m
}

// register registers every metric with r; one already registered (a
// second controller in the process) is replaced by the one registered
// first, so both report into the same series.
func (m *metrics) register(r prometheus.Registerer) error {
	for i, c := range m.collectorList {
		if err := r.Register(c); err != nil {
			are, ok := err.(prometheus.AlreadyRegisteredError)
			if !ok {
				return err
			}
			m.collectorList[i] = are.ExistingCollector
		}
	}
	m.pools = m.collectorList[0].(*prometheus.GaugeVec)
	m.warnings = m.collectorList[1].(*prometheus.GaugeVec)
	m.goldens = m.collectorList[2].(*prometheus.GaugeVec)
	m.hostAssisted = m.collectorList[3].(prometheus.Gauge)
	m.replan = m.collectorList[4].(*prometheus.HistogramVec)
	m.planFailures = m.collectorList[5].(prometheus.Counter)
	m.disks = m.collectorList[6].(*prometheus.GaugeVec)
	m.diskWarnings = m.collectorList[7].(*prometheus.GaugeVec)
	m.diskHostAssisted = m.collectorList[8].(prometheus.Gauge)
	m.eventsDropped = m.collectorList[9].(*prometheus.CounterVec)
	return nil
}
