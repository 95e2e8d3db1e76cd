/// What every request names once: the resource (the process that ran: service name, scenario, seed, shard,
/// version) and the instrumentation scope (callstorm itself).
public struct OTLPResource: Sendable, Equatable {
    public var attributes: [OTLPAttribute]
    public var scopeName: String
    public var scopeVersion: String

    public init(attributes: [OTLPAttribute], scopeName: String = "callstorm", scopeVersion: String = "") {
        self.attributes = attributes
        self.scopeName = scopeName
        self.scopeVersion = scopeVersion
    }

    /// resource.proto: Resource { attributes = 1 }.
    func encodeResource(into w: inout ProtoWriter) {
        w.attributes(1, attributes)
    }

    /// common.proto: InstrumentationScope { name = 1; version = 2 }.
    func encodeScope(into w: inout ProtoWriter) {
        w.string(1, scopeName)
        w.string(2, scopeVersion)
    }
}
