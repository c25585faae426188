package plantest

// The generators the package draws with, for its own tests.
var (
	FactoryURL           = factoryURL
	MalformedFactoryURL  = malformedFactoryURL
	MalformedSchematicID = malformedSchematicID
	MalformedSize        = malformedSize
	MalformedVersion     = malformedVersion
	Phases               = phases
	SchematicID          = schematicID
	Size                 = size
	SizeBytes            = sizeBytes
	Version              = version
)
