/// One slice of a distributed run, written `i/N` on the command line (`--shard 2/4`), like k6's execution
/// segments: shard `i` owns the devices `{d : d % N == i}` and the arrivals `{k : k % N == i}`, so N shards
/// together run exactly the plan one unsharded run does. Device identities and tokens stay global (derived from
/// the global index), so they are unique across shards.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole run.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    private init(uncheckedIndex: Int, count: Int) {
        self.index = uncheckedIndex
        self.count = count
    }

    /// Nil unless `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.init(uncheckedIndex: index, count: count)
    }

    /// Parses `i/N` (zero-based `i`); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: i, count: n)
    }

    public var description: String { "\(index)/\(count)" }
    public var isWhole: Bool { count == 1 }

    public func owns(device globalIndex: Int) -> Bool { globalIndex % count == index }
    public func owns(arrival arrivalIndex: Int) -> Bool { arrivalIndex % count == index }

    /// How many of `devices` global devices this shard owns.
    public func deviceCount(of devices: Int) -> Int {
        devices > index ? (devices - index + count - 1) / count : 0
    }
}

extension DriverSettings {
    /// Whether `worker` runs arrival `arrivalIndex`: the shard's arrivals, dealt round-robin to its workers.
    @inline(__always)
    func owns(arrival arrivalIndex: Int, worker: Int) -> Bool {
        shard.owns(arrival: arrivalIndex) && (arrivalIndex / shard.count) % workers == worker
    }

    /// Global device indexes of `worker`: the shard's devices, dealt round-robin to its workers. Local index `m`
    /// of worker `w` is global device `shard.index + shard.count * (w + workers * m)`.
    func deviceIndexes(worker: Int) -> [Int] {
        Array(stride(from: shard.index + shard.count * worker, to: devices, by: shard.count * workers))
    }

    /// The worker and its local index for a global device index, or nil when another shard owns it.
    func owner(ofDevice globalIndex: Int) -> (worker: Int, local: Int)? {
        guard shard.owns(device: globalIndex) else { return nil }
        let inShard = globalIndex / shard.count
        return (inShard % workers, inShard / workers)
    }
}
