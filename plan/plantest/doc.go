// Package plantest holds pgregory.net/rapid generators of the planner's
// inputs, for property tests of the worker-disk guards, in this module and
// in other Cozystack projects.
//
// Inputs drawn independently would almost never meet: a random pool names
// a flavor no catalog holds, a random disk sits on a class no cluster has.
// So a draw starts from a Vocabulary, a few flavors, classes, namespaces and
// clusters, and draws pools (Vocabulary.Pool), catalog values
// (Vocabulary.CatalogValues) and the cluster's state (Vocabulary.State)
// from it. Scenarios draws all of it at once.
//
// # What is drawn
//
//   - Pools with every image source (osImage absent, {}, builtin, factory,
//     both), every optional field present or absent, valid and malformed
//     identifiers (schematic IDs, Talos versions, Image Factory URLs), and
//     sizes in any unit (Spellings: 6Gi, 6144Mi and 6442450944 are one
//     size), or malformed. Malformed values come only from a
//     vocabulary with Malformed set, as half the drawn ones have.
//   - Catalog values enabled or not, with the chart's default images, none,
//     or entries overriding the catalog's fields, some repeated or
//     malformed (ValidCatalogValues draws only accepted ones).
//   - States with zero, one or several default StorageClasses of each tier,
//     goldens in every CDI phase known by their DataVolume, their
//     PVC or both, pools that have already cloned their golden,
//     StorageProfiles whose claim property sets CDI can render a disk from
//     or not, the CDI resource and StorageProfiles with each clone
//     strategy, CSIDrivers, VolumeSnapshotClasses, CDI's CDIConfig with its
//     filesystem overheads (or none), the PersistentVolume each bound
//     golden PVC is on (of its class's CSI driver, another driver, a host
//     path, claimed by another PVC, or missing), and kinds left unknown.
//     Half the clusters are healthy, as Cozystack runs CDI, so that clones
//     CDI makes are drawn as often as the ways they fail (State).
//
// # Consistent by default
//
// A drawn state is consistent the way a real cluster is: a bound PVC has a
// class, a golden's PVC carries the golden's name and metadata, a disk that
// cloned a golden carries the annotations the Helm implementation writes,
// and a kind that was not observed has no objects. Options.Inconsistent
// also draws what a broken cluster, or a hand-written state file, shows;
// Options.FullyObserved observes every kind.
//
// # Writing a property
//
// One property per rapid.Check, with named draws:
//
//	func TestBuiltinNeverFallsBackToHTTP(t *testing.T) {
//		rapid.Check(t, func(t *rapid.T) {
//			s := plantest.Scenarios(plantest.Options{}).Draw(t, "scenario")
//			for i, r := range s.Plan() {
//				if _, builtin := plantest.Flavor(s.Pools[i]); builtin && r.Source == plan.HTTP {
//					t.Fatalf("pool %d: builtin planned over HTTP", i)
//				}
//			}
//		})
//	}
//
// CopyPool, CopyValues and CopyState deep-copy inputs, so that a property
// can check that planning left them unchanged.
package plantest
