package cli

import (
	"flag"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
)

var computePlaneCommand = &command{
	name:     "computeplane",
	summary:  "derive a ComputePlane's pool releases",
	synopsis: "computeplane -f VALUES.yaml [-o yaml|json]",
	about: `Turns a ComputePlane's values (its tenant supplies only nodeGroups) into the
values of each kubernetes-nodes pool release and its release name. Only the
allowlisted node-group fields are forwarded; every other field is dropped
with a DroppedField warning: the worker OS image is the operator's decision,
never the tenant's.`,
	example: `worker-image computeplane -f computeplane-values.yaml
echo 'nodeGroups: {md0: {maxReplicas: 3, roles: [ingress-nginx]}}' | worker-image computeplane -f - -o json`,
	flags: func(fs *flag.FlagSet, o *options) {
		o.fileFlag(fs, "VALUES.yaml: the ComputePlane's values")
		o.outputFlag(fs, yamlOut, jsonOut)
	},
	run: runComputePlane,
}

func runComputePlane(a *app, o *options, args []string) error {
	if len(args) > 0 {
		return badUsage("unexpected argument %q", args[0])
	}
	if o.file == "" {
		return badUsage("-f VALUES.yaml is required")
	}
	data, name, err := a.readFile(o.file)
	if err != nil {
		return err
	}
	if _, err := values(name, data); err != nil {
		return err
	}
	v, err := computeplane.DecodeValues(data)
	if err != nil {
		return unusable("%s: %v", name, err)
	}
	res, perr := computeplane.Plan(v)
	if o.output != human {
		if err := writeData(a.stdout, o.output, res); err != nil {
			return err
		}
	} else {
		for _, p := range res.Pools {
			fmt.Fprintf(a.stdout, "pool %s: release %s\n", p.Name, p.ReleaseName)
			text, err := yaml.Marshal(p.Values)
			if err != nil {
				return failed("encode pool %s's values: %v", p.Name, err)
			}
			fmt.Fprintf(a.stdout, "%s\n", indentLines(string(text), "  "))
		}
		c := res.Cluster
		fmt.Fprintf(a.stdout, "cluster release %s; admin kubeconfig in Secret %s, key %s\n", c.Release, c.AdminKubeconfig.Secret, c.AdminKubeconfig.Key)
		printWarnings(a.stderr, res.Warnings)
		printRefusals(a.stderr, res.Refusals)
	}
	if perr != nil {
		return errRefused
	}
	return nil
}
