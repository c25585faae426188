// Package naming derives the names and URLs of the worker-image feature and
// validates the values they are built from: a golden DataVolume's name
// talos-worker-<schematicID>-<version> in namespace cozy-public, the Image
// Factory URL of a flavor's raw image, the in-guest installer image, and the
// annotations and label that goldens and worker disks carry (the values the
// Helm implementation writes, so disks it made are recognised). The planner,
// the catalog and the values schema share these rules, so they cannot drift.
//
// # Rules
//
//   - A schematic ID is ^[a-z0-9]+$ (InvalidSchematicID).
//   - A version is a release vMAJOR.MINOR.PATCH without leading zeros or a
//     suffix: v0.0.0 passes; v01.2.3, v1.2 and v1.2.3-rc.1 are refused
//     (InvalidVersion).
//   - An Image Factory URL is an absolute http or https URL with a host and
//     no query, fragment or user info, even empty ones ("https://f/?",
//     "https://f#", "https://@f"); a port is 1 to 65535, and a trailing slash
//     is fine (InvalidImageFactoryURL).
//   - A golden's name must be a DNS-1123 subdomain (at most 253 characters):
//     GoldenName refuses a name that is not, rather than emit it, and
//     ParseGoldenName reads back exactly the names GoldenName derives.
//   - ImageURL trims exactly one trailing "/" from the factory, as the chart
//     does, so the HTTP path renders byte for byte as before.
//   - SameURL compares source URLs with scheme and host case-blind and
//     default ports dropped; everything else must match.
//
// Validators take the values path as their last argument and return the
// refusals at that path as a guard.Refusals, nil when the value is valid.
package naming
