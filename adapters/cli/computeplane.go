package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/cozystack/kubernetes-worker-image/guard"
	example "github.com/cozystack/kubernetes-worker-image/internal/examplefiles"
	"github.com/cozystack/kubernetes-worker-image/plan/computeplane"
)

func (a *app) computePlaneCommand() *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "computeplane -f VALUES.yaml [-o yaml|json]",
		Short: "derive a ComputePlane's pool releases",
		Long: `Turns a ComputePlane's values (its tenant supplies only nodeGroups) into the
values of each kubernetes-nodes pool release and its release name. Only the
allowlisted node-group fields are forwarded; every other field is dropped
with a DroppedField warning: the worker OS image is the operator's decision,
never the tenant's.`,
		Example: a.examples(`worker-image computeplane --example
worker-image computeplane -f computeplane-values.yaml
echo 'nodeGroups: {md0: {maxReplicas: 3, roles: [ingress-nginx]}}' | worker-image computeplane -f - -o json`),
		Args: noArgs,
		RunE: a.runE(o, a.runComputePlane),
	}
	fs := cmd.Flags()
	fs.StringSliceVarP(&o.files, "filename", "f", nil, "`VALUES.yaml`: the ComputePlane's values (\"-\" reads standard input)")
	o.outputFlag(fs, yamlOut, jsonOut)
	o.strictFlag(fs, false)
	fs.BoolVar(&o.example, "example", false, "run on the walkthrough's ComputePlane values embedded from examples/cli")
	return cmd
}

func (a *app) runComputePlane(o *options, _ []string) error {
	var data []byte
	var name string
	switch {
	case o.example && len(o.files) > 0:
		return badUsage("--example brings its own file; pass it alone, or pass -f without it")
	case o.example:
		data, name = example.ComputePlane, example.ComputePlaneFile
	case len(o.files) == 1:
		var err error
		if data, name, err = a.readFile(o.files[0]); err != nil {
			return err
		}
	case len(o.files) > 1:
		return badUsage("computeplane reads one values file; -f names %d", len(o.files))
	default:
		return badUsage("-f VALUES.yaml is required")
	}
	if _, err := values(name, data); err != nil {
		return err
	}
	v, err := computeplane.DecodeValues(data)
	if err != nil {
		return unusable("%s: %v", name, err)
	}
	res, perr := computeplane.Plan(v)
	if o.strict {
		var add guard.Refusals
		res.Warnings, add = strictRefusals(res.Warnings)
		if len(add) > 0 {
			res.Refusals = append(res.Refusals, add...)
			res.Pools = nil
			perr = res.Refusals.Err()
		}
	}
	if o.output != human {
		if err := writeData(a.stdout, o.output, res); err != nil {
			return err
		}
	} else {
		for _, p := range res.Pools {
			printf(a.stdout, "pool %s: release %s\n", p.Name, p.ReleaseName)
			text, err := yaml.Marshal(p.Values)
			if err != nil {
				return failed("encode pool %s's values: %v", p.Name, err)
			}
			fmt.Fprintf(a.stdout, "%s\n", escapeLines(indentLines(string(text), "  ")))
		}
		c := res.Cluster
		printf(a.stdout, "cluster release %s; admin kubeconfig in Secret %s, key %s\n", c.Release, c.AdminKubeconfig.Secret, c.AdminKubeconfig.Key)
		printWarnings(a.stderr, res.Warnings, nil)
		printRefusals(a.stderr, res.Refusals)
	}
	if perr != nil {
		return errRefused
	}
	return nil
}
