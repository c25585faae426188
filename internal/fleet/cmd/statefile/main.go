// Command statefile writes the benchmark fleet's state file as kubectl
// prints it, and measures reading one: the figures of issue 17 that a Go
// benchmark cannot give (the peak resident memory of a process that does
// nothing else).
//
//	statefile -times 10 -format JSONList > state.json
//	statefile -disks 100000 -format JSONList > state.json
//	statefile -read state.json
//
// -read prints the objects read, the time it took and the process's peak
// resident set (VmHWM), and the peak as a multiple of the file's size.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/cozystack/kubernetes-worker-image/adapters/manifests"
	"github.com/cozystack/kubernetes-worker-image/internal/fleet"
)

func main() {
	times := flag.Int("times", 1, "fleet.Workers times this many")
	disks := flag.Int("disks", 0, "fleet.Workers with this many worker disks instead")
	format := flag.String("format", "YAMLList", "YAMLList, YAMLDocuments, JSONList or JSONDocuments")
	read := flag.String("read", "", "read this state file instead and report")
	cpuProfile := flag.String("cpuprofile", "", "with -read, write a CPU profile of the read here")
	flag.Parse()
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

func measure(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	t0 := time.Now()
	st, notes, err := manifests.ReadFiles(path)
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
