/// Which way through a proxied connection a toxic acts on.
public enum ToxicDirection: String, Sendable, Equatable, CaseIterable {
    /// Client → server: what callstorm's devices send to the target.
    case upstream
    /// Server → client: what the target answers.
    case downstream
    /// Both ways, each with its own per-connection state (the per-connection toxicity decision is shared).
    case both

    /// Whether a toxic configured for `self` acts on the one-way stream `flow` (`.upstream` or `.downstream`).
    func covers(_ flow: ToxicDirection) -> Bool { self == .both || self == flow }
}

/// One toxic as configuration: plain data, checked and turned into a `Toxic` by `ToxicRegistry`.
///
/// `name` identifies the toxic within one `setToxics` list (it must be unique there) and is the key its
/// statistics and per-connection decisions are filed under. Keeping the same name and the same spec across
/// `setToxics` calls keeps the toxic (and its per-connection state) on live connections.
public struct ToxicSpec: Sendable, Equatable {
    public var name: String
    /// A registered kind: `latency`, `bandwidth`, `slow_close`, `timeout`, `reset_peer`, `slicer`, `limit_data`.
    public var kind: String
    public var direction: ToxicDirection
    /// Probability in 0...1 that the toxic acts on a given connection; decided once per connection from the seed.
    public var toxicity: Double
    /// Over this long after the toxic is added, its toxicity grows linearly from 0 to `toxicity`: a connection
    /// is decided once, when it first meets the toxic, at the toxicity of that moment. 0 is full at once.
    public var rampNanos: UInt64 = 0
    /// Kind-specific numbers; see `ToxicRegistry.attributes(of:)`. Missing ones take their defaults.
    public var attributes: [String: Double]

    public init(
        name: String, kind: String, direction: ToxicDirection = .downstream, toxicity: Double = 1,
        attributes: [String: Double] = [:]
    ) {
        self.name = name
        self.kind = kind
        self.direction = direction
        self.toxicity = toxicity
        self.attributes = attributes
    }

    /// A spec named after its kind, for the common case of one toxic of each kind.
    public init(
        _ kind: String, direction: ToxicDirection = .downstream, toxicity: Double = 1,
        _ attributes: [String: Double] = [:]
    ) {
        self.init(name: kind, kind: kind, direction: direction, toxicity: toxicity, attributes: attributes)
    }
}

/// One number a toxic kind accepts, with its default and the range it must lie in.
public struct ToxicAttribute: Sendable, Equatable {
    public var name: String
    public var defaultValue: Double
    public var minimum: Double
    public var maximum: Double
    /// The unit, for messages and docs ("ms", "KB/s", "bytes", "µs").
    public var unit: String
    /// What the number does, one line.
    public var summary: String

    public init(
        _ name: String, default defaultValue: Double, minimum: Double = 0, maximum: Double = .greatestFiniteMagnitude,
        unit: String, _ summary: String
    ) {
        self.name = name
        self.defaultValue = defaultValue
        self.minimum = minimum
        self.maximum = maximum
        self.unit = unit
        self.summary = summary
    }
}
