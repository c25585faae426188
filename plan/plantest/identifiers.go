package plantest

import (
	"strings"

	"pgregory.net/rapid"
)

// schematicID draws a schematic ID the planner accepts: lowercase letters
// and digits, usually 64 hexadecimal characters as the Image Factory prints
// them, sometimes short.
func schematicID() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.StringMatching(`[0-9a-f]{64}`),
		rapid.StringMatching(`[a-z0-9]{1,12}`),
	)
}

// malformedSchematicID draws a schematic ID the planner refuses
// InvalidSchematicID: upper case, punctuation, white space, non-ASCII, or
// lowercase and digits but too long for the golden's name to be an object
// name. It is never "", which means "not set".
func malformedSchematicID() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.StringMatching(`[a-z0-9]{0,6}[A-Z\-_. /:é][a-z0-9]{0,6}`),
		rapid.SampledFrom([]string{"CE4C98", "ce4c-98", " ce4c98", "ce4c98\n", "ce4c98é"}),
		rapid.Just(strings.Repeat("a", 241)),
	)
}

// version draws a Talos release the planner accepts: vMAJOR.MINOR.PATCH
// without leading zeros or suffix.
func version() *rapid.Generator[string] {
	return rapid.StringMatching(`v(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})`)
}

// malformedVersion draws a version the planner refuses InvalidVersion: no
// "v", two or four parts, leading zeros, a pre-release or build suffix,
// surrounding white space. It is never "".
func malformedVersion() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"1.13.6", "v1.13", "v1.13.6.1", "v01.13.6", "v1.013.6", "v1.13.06",
			"v1.13.6-rc.1", "v1.13.6+build", "V1.13.6", " v1.13.6", "v1.13.6\n", "latest", "v"}),
		rapid.StringMatching(`v[0-9]{1,2}\.[0-9]{1,2}(\.[0-9]{1,2})?-[a-z]{1,5}`),
	)
}

// factoryURL draws an Image Factory URL the planner accepts: absolute http
// or https with a host, sometimes a port, a path or one trailing "/".
func factoryURL() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"https://factory.talos.dev", "https://factory.talos.dev/", "http://mirror.example:8080", "https://mirror.example/talos/"}),
		rapid.StringMatching(`https?://[a-z][a-z0-9]{0,8}(\.[a-z]{2,4}){0,2}(:[1-9][0-9]{1,3})?(/[a-z]{1,5}){0,2}/?`),
	)
}

// malformedFactoryURL draws a URL the planner refuses
// InvalidImageFactoryURL: no scheme, another scheme, no host, user info, a
// query, a fragment, a bad port, white space. It is never "".
func malformedFactoryURL() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"factory.talos.dev", "ftp://factory.talos.dev", "https://", "https:///image",
		"https://user@factory.talos.dev", "https://factory.talos.dev?x=1", "https://factory.talos.dev/?", "https://factory.talos.dev#top",
		"https://factory.talos.dev:99999", " https://factory.talos.dev", "https://factory talos.dev", "mailto:ops@example.com"})
}
