// Command statefile writes the benchmark fleet's state file as kubectl
// prints it, and measures reading one: the scale figures that a Go
// benchmark cannot give (the peak resident memory of a process that does
// nothing else).
//
//	statefile -times 10 -format JSONList > state.json
//	statefile -disks 100000 -format JSONList > state.json
//	statefile -read state.json
//	statefile -times 1 -pools 10000 > pools.yaml
//	statefile -times 1 -catalog > catalog.yaml
//
// -pools writes that many KubernetesNodes documents that clone the fleet's
// goldens, and -catalog the catalog values that serve them: with the state, the
// inputs of the CLI's whole-process figure (`worker-image plan -f pools.yaml
// --catalog catalog.yaml --state state.json -o chart`).
//
// -read prints the objects read, the time it took and the process's peak
// resident set (VmHWM), and the peak as a multiple of the file's size.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
	"github.com/cozystack/kubernetes-worker-image/plan"
	"sigs.k8s.io/yaml"
)

func main() {
	times := flag.Int("times", 1, "fleet.Workers times this many")
	disks := flag.Int("disks", 0, "fleet.Workers with this many worker disks instead")
	format := flag.String("format", "YAMLList", "YAMLList, YAMLDocuments, JSONList or JSONDocuments")
	read := flag.String("read", "", "read this state file instead and report")
	cpuProfile := flag.String("cpuprofile", "", "with -read, write a CPU profile of the read here")
	pools := flag.Int("pools", 0, "write this many KubernetesNodes of the fleet instead")
	catalogValues := flag.Bool("catalog", false, "write the fleet's catalog values instead")
	flag.Parse()
	if *pools > 0 || *catalogValues {
		size := fleet.Workers.Times(*times)
		var err error
		if *pools > 0 {
			err = writePools(os.Stdout, fleet.Pools(size, *pools))
		} else {
			err = writeYAML(os.Stdout, fleet.Catalog(size))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if *read != "" {
		if err := measure(*read); err != nil {
			fmt.Fprintln(os.Stderr, err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
		return
	}
	for f := fleet.YAMLList; f <= fleet.JSONDocuments; f++ {
		if f.String() == *format {
			size := fleet.Workers.Times(*times)
			if *disks > 0 {
				size.PVCs, size.Namespaces = *disks, max(*disks/20, 1)
			}
			if err := fleet.Write(os.Stdout, fleet.Served(fleet.State(size)), f); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "no format %q\n", *format)
	os.Exit(2)
}

// writePools writes pools as KubernetesNodes documents.
func writePools(w io.Writer, pools []plan.Pool) error {
	bw := bufio.NewWriter(w)
	for _, p := range pools {
		doc := map[string]any{
			"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KubernetesNodes",
			"metadata": map[string]any{"name": p.Name, "namespace": p.Namespace},
			"spec":     p.Spec,
		}
		bw.WriteString("---\n")
		if err := writeYAML(bw, doc); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeYAML(w io.Writer, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func measure(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	t0 := time.Now()
	rr, err := manifests.ReadFiles(path)
	st, notes := rr.State, rr.Notes
	if err != nil {
		return err
	}
	d := time.Since(t0)
	hwm := peakRSS()
	mb := float64(fi.Size()) / 1e6
	fmt.Printf("%s: %.0f MB, %d PVCs, %d DataVolumes, %d notes, %.2f s, %.1f MB/s, peak RSS %.0f MiB (%.2f× the file)\n",
		path, mb, len(st.PersistentVolumeClaims), len(st.DataVolumes), len(notes), d.Seconds(), mb/d.Seconds(),
		float64(hwm)/(1<<20), float64(hwm)/float64(fi.Size()))
	return nil
}

// peakRSS is the process's VmHWM in bytes, 0 where /proc does not say.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := strings.CutPrefix(string(line), "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb)
			return kb << 10
		}
	}
	return 0
}
