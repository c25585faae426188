package plantest

import (
	"pgregory.net/rapid"

	"github.com/cozystack/kubernetes-worker-image/catalog"
	"github.com/cozystack/kubernetes-worker-image/naming"
)

// CatalogValues draws the catalog package's values: enabled or not (usually
// enabled), the chart's default images, none ([]) or entries for most of
// the vocabulary's flavors, each overriding the catalog's factory, size and
// class or not. For a Malformed vocabulary some draws repeat a flavor
// (DuplicateCatalogEntry) or carry a malformed field.
func (v Vocabulary) CatalogValues() *rapid.Generator[catalog.Values] {
	return rapid.Custom(func(t *rapid.T) catalog.Values {
		return v.catalogValues(t, !v.Malformed)
	})
}

// ValidCatalogValues draws catalog values the catalog accepts: no malformed
// field and no repeated flavor. They may be disabled.
func (v Vocabulary) ValidCatalogValues() *rapid.Generator[catalog.Values] {
	return rapid.Custom(func(t *rapid.T) catalog.Values { return v.catalogValues(t, true) })
}

func (v Vocabulary) catalogValues(t *rapid.T, valid bool) catalog.Values {
	c := catalog.Default()
	c.Enabled = !chance(t, "disabled", 16)
	malformed := func(label string) bool { return !valid && chance(t, label, 8) }
	switch {
	case malformed("globalURLMalformed"):
		c.ImageFactoryURL = malformedFactoryURL().Draw(t, "globalURL")
	case chance(t, "globalURLSet", 4):
		c.ImageFactoryURL = factoryURL().Draw(t, "globalURL")
	}
	switch pick(t, "globalClass", 8, 1, 1) {
	case 1:
		c.StorageClass = ""
	case 2:
		c.StorageClass = rapid.SampledFrom(v.Classes).Draw(t, "globalClassName")
	}
	switch {
	case malformed("globalStorageMalformed"):
		c.Storage = malformedSize().Draw(t, "globalStorage")
	case chance(t, "globalStorageSet", 3):
		c.Storage = size().Draw(t, "globalStorage")
	}
	switch pick(t, "images", 20, 1, 1) {
	case 0:
		c.Images = v.images(t, valid, malformed)
	case 2:
		c.Images = []catalog.Image{}
	}
	return c
}

func (v Vocabulary) images(t *rapid.T, valid bool, malformed func(string) bool) []catalog.Image {
	var flavors []catalog.Flavor
	for _, f := range rapid.Permutation(v.flavors).Draw(t, "order") {
		if !chance(t, "flavorLeftOut", 12) {
			flavors = append(flavors, f)
		}
		if !valid && chance(t, "flavorRepeated", 6) {
			flavors = append(flavors, f)
		}
	}
	var out []catalog.Image
	for _, f := range flavors {
		img := catalog.Image{Flavor: f}
		if malformed("entrySchematicIDMalformed") {
			img.SchematicID = malformedSchematicID().Draw(t, "entrySchematicID")
		}
		if malformed("entryVersionMalformed") {
			img.Version = malformedVersion().Draw(t, "entryVersion")
		}
		switch {
		case malformed("entryURLMalformed"):
			img.ImageFactoryURL = malformedFactoryURL().Draw(t, "entryURL")
		case chance(t, "entryURLSet", 4):
			img.ImageFactoryURL = factoryURL().Draw(t, "entryURL")
		}
		switch {
		case malformed("entryStorageMalformed"):
			img.Storage = malformedSize().Draw(t, "entryStorage")
		case chance(t, "entryStorageSet", 3):
			img.Storage = size().Draw(t, "entryStorage")
		}
		if chance(t, "entryClassSet", 8) {
			img.StorageClass = rapid.SampledFrom(v.Classes).Draw(t, "entryClass")
		}
		out = append(out, img)
	}
	return out
}

// goldenName is a flavor's golden name, "" when the flavor names none.
func goldenName(f catalog.Flavor) string {
	name, err := naming.GoldenName(f.SchematicID, f.Version, nil, nil)
	if err != nil {
		return ""
	}
	return name
}
