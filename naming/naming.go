package naming

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/cozystack/kubernetes-worker-image/guard"
	"github.com/cozystack/kubernetes-worker-image/internal/findings"
)

const (
	// GoldenNamespace holds every golden DataVolume.
	GoldenNamespace = "cozy-public"
	// GoldenPrefix starts every golden's name.
	GoldenPrefix = "talos-worker-"
	// ImageFile is the Talos image every worker disk boots from.
	ImageFile = "openstack-amd64.raw.xz"
)

// SchematicIDPattern and VersionPattern are the rules the planner, the catalog
// and the values schema share.
const (
	SchematicIDPattern = `^[a-z0-9]+$`
	VersionPattern     = `^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`
)

var (
	schematicRE = regexp.MustCompile(SchematicIDPattern)
	versionRE   = regexp.MustCompile(VersionPattern)
)

// Validators return the refusals they find, nil when the value is valid,
// in the manner of apimachinery's field validators: append them, and turn
// a list into an error with Refusals.Err.

// ValidateSchematicID refuses an Image Factory schematic ID that is not
// lowercase letters and digits. For example "ce4c98" passes; "CE4C98", "" and
// "ce4c-98" are refused InvalidSchematicID at fld.
func ValidateSchematicID(id string, fld *field.Path) guard.Refusals {
	if schematicRE.MatchString(id) {
		return nil
	}
	return guard.Refusals{findings.NewRefusal(guard.InvalidSchematicID, fld, id,
		"schematic ID %q is not lowercase letters and digits (%s); copy the ID the Talos Image Factory printed for the schematic", id, SchematicIDPattern)}
}

// ValidateVersion refuses a Talos version that is not a release
// vMAJOR.MINOR.PATCH without leading zeros or suffix. For example "v1.13.6"
// passes; "1.13.6", "v1.13", "v1.013.6" and "v1.13.6-beta.0" are refused
// InvalidVersion at fld.
func ValidateVersion(v string, fld *field.Path) guard.Refusals {
	if versionRE.MatchString(v) {
		return nil
	}
	return guard.Refusals{findings.NewRefusal(guard.InvalidVersion, fld, v,
		"version %q is not a Talos release vMAJOR.MINOR.PATCH (no leading zeros, no suffix); use a release such as v1.13.6", v)}
}

// ValidateImageFactoryURL refuses an Image Factory URL that is not an
// absolute http or https URL with a host and without query, fragment or
// user info. For example "https://factory.talos.dev" passes;
// "factory.talos.dev", "ftp://f", "https://u@f" and "https://f?x=1" are
// refused InvalidImageFactoryURL at fld.
func ValidateImageFactoryURL(raw string, fld *field.Path) guard.Refusals {
	why := urlProblem(raw)
	if why == "" {
		return nil
	}
	return guard.Refusals{findings.NewRefusal(guard.InvalidImageFactoryURL, fld, raw,
		"image factory URL %q %s; use an absolute http(s) URL such as https://factory.talos.dev", raw, why)}
}

func urlProblem(raw string) string {
	if strings.TrimSpace(raw) != raw || strings.ContainsAny(raw, " \t\r\n") {
		return "contains white space"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "does not parse"
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "is not http or https"
	case u.Opaque != "":
		return "is not hierarchical"
	case u.User != nil:
		return "carries user info"
	case u.Hostname() == "":
		return "has no host"
	case u.RawQuery != "" || u.ForceQuery || strings.Contains(raw, "?"):
		return "has a query"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return "has a fragment"
	case u.Port() != "" && !validPort(u.Port()):
		return "has an invalid port"
	}
	return ""
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && len(validation.IsValidPortNum(n)) == 0
}

// GoldenName derives the golden DataVolume's name for a flavor. It validates
// both parts and refuses a name that is not a DNS-1123 subdomain rather than
// emit it. For example GoldenName("ce4c98", "v1.13.6") is
// "talos-worker-ce4c98-v1.13.6".
func GoldenName(schematicID, version string, schematicPath, versionPath *field.Path) (string, guard.Refusals) {
	errs := append(ValidateSchematicID(schematicID, schematicPath), ValidateVersion(version, versionPath)...)
	if len(errs) > 0 {
		return "", errs
	}
	name := GoldenPrefix + schematicID + "-" + version
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", guard.Refusals{findings.NewRefusal(guard.InvalidSchematicID, schematicPath, schematicID,
			"golden name %q is not a valid object name (%s); use a shorter schematic ID", name, strings.Join(msgs, "; "))}
	}
	return name, nil
}

// ParseGoldenName splits a golden's name into its schematic ID and version.
// It reports false for a name that GoldenName would not derive. For example
// "talos-worker-ce4c98-v1.13.6" is ("ce4c98", "v1.13.6", true);
// "talos-worker-ce4c98-v1.13" is not a golden's name.
func ParseGoldenName(name string) (schematicID, version string, ok bool) {
	rest, found := strings.CutPrefix(name, GoldenPrefix)
	if !found || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "", "", false
	}
	i := strings.LastIndex(rest, "-")
	if i < 0 {
		return "", "", false
	}
	schematicID, version = rest[:i], rest[i+1:]
	if !schematicRE.MatchString(schematicID) || !versionRE.MatchString(version) {
		return "", "", false
	}
	return schematicID, version, true
}

// ImageURL is the Image Factory URL of a flavor's raw image, the factory with
// one trailing "/" trimmed (the chart's trimSuffix "/"), the schematic ID
// and version as they are (the chart prints them unquoted, so nothing is
// escaped). For example ImageURL("https://factory.talos.dev/",
// "ce4c98", "v1.13.6") is
// "https://factory.talos.dev/image/ce4c98/v1.13.6/openstack-amd64.raw.xz".
func ImageURL(factory, schematicID, version string) string {
	return strings.TrimSuffix(factory, "/") + "/image/" + schematicID + "/" + version + "/" + ImageFile
}

// InstallerImage is the in-guest upgrade installer for a flavor, the
// repository with one trailing "/" trimmed, as the kubernetes-nodes chart's
// talos-reconcile Job applies it (its template escapes backslash, "$" and
// "`" for an unquoted heredoc, which takes the escapes back). For example
// InstallerImage("factory.talos.dev/installer/", "ce4c98", "v1.13.6") is
// "factory.talos.dev/installer/ce4c98:v1.13.6", and a repository ending in
// "//" keeps one.
func InstallerImage(repository, schematicID, version string) string {
	return strings.TrimSuffix(repository, "/") + "/" + schematicID + ":" + version
}

// SameURL compares two source URLs canonically: scheme and host case-blind,
// default ports dropped; path, query, fragment and user info compared as
// written, since a different query or credential may fetch another image.
// Unparsable URLs compare as strings. For example "HTTPS://Factory:443/x"
// and "https://factory/x" are the same; "https://f/x?a=1" and "https://f/x"
// are not.
func SameURL(a, b string) bool {
	if a == b {
		return true
	}
	ca, okA := canonical(a)
	cb, okB := canonical(b)
	return okA && okB && ca == cb
}

func canonical(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	return u.String(), true
}
