package helm

import (
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// imageFactoryURLPattern is the values schema's first check of an Image
// Factory URL: http or https, a host, no user info, query or fragment. It is
// never stricter than naming.ValidateImageFactoryURL (a test holds it to
// that), which stays the rule: the planner refuses what the pattern cannot
// see, such as a port out of range.
const imageFactoryURLPattern = `^[hH][tT][tT][pP][sS]?://[^\s/?#@:][^\s/?#@]*(/[^\s?#]*)?$`

// OSImageSchema is the JSON Schema of the kubernetes-nodes chart's osImage
// value, for its values.schema.json: builtin or factory, not both, each
// field either "" (not set: it falls back to talos.*) or valid by the
// planner's own patterns.
func OSImageSchema() map[string]any {
	return map[string]any{
		"type":        "object",
		"description": "Where the worker disk's image comes from. Absent: HTTP import from talos.*. Set one of builtin and factory.",
		"properties": map[string]any{
			"builtin": map[string]any{
				"type":                 "object",
				"description":          "Clone the catalog's golden of this flavor; empty fields fall back to talos.*.",
				"additionalProperties": false,
				"properties": map[string]any{
					"schematicID": optional(schematicID()),
					"version":     optional(version()),
				},
			},
			"factory": map[string]any{
				"type":                 "object",
				"description":          "Import over HTTP from this Image Factory; empty fields fall back to talos.*.",
				"additionalProperties": false,
				"properties": map[string]any{
					"schematicID":     optional(schematicID()),
					"version":         optional(version()),
					"imageFactoryURL": optional(imageFactoryURL()),
				},
			},
		},
		"additionalProperties": false,
		"not":                  map[string]any{"required": []any{"builtin", "factory"}},
	}
}

// ImagesSchema is the JSON Schema of the catalog's images[] value, for its
// values.schema.json: each entry's flavor valid by the planner's patterns,
// the optional overrides "" (not set) or valid.
func ImagesSchema() map[string]any {
	return map[string]any{
		"type":        "array",
		"description": "The goldens: one per (schematicID, version).",
		"items": map[string]any{
			"type":                 "object",
			"required":             []any{"schematicID", "version"},
			"additionalProperties": false,
			"properties": map[string]any{
				"schematicID":     schematicID(),
				"version":         version(),
				"imageFactoryURL": optional(imageFactoryURL()),
				"storage":         map[string]any{"type": "string", "description": "Size of the golden; empty: the catalog's storage."},
				"storageClass":    map[string]any{"type": "string", "description": "Class of the golden; empty: the catalog's storageClass."},
			},
		},
	}
}

func schematicID() map[string]any {
	return map[string]any{"type": "string", "pattern": naming.SchematicIDPattern, "description": "Talos Image Factory schematic ID."}
}

func version() map[string]any {
	return map[string]any{"type": "string", "pattern": naming.VersionPattern, "description": "Talos release vMAJOR.MINOR.PATCH."}
}

func imageFactoryURL() map[string]any {
	return map[string]any{"type": "string", "format": "uri", "pattern": imageFactoryURLPattern, "description": "Absolute http(s) URL of a Talos Image Factory."}
}

// optional admits "" beside what s admits: "" means not set.
func optional(s map[string]any) map[string]any {
	desc := s["description"]
	delete(s, "description")
	return map[string]any{
		"type":        "string",
		"description": desc,
		"anyOf":       []any{map[string]any{"maxLength": 0}, s},
	}
}
