import Locking

/// The process's metric names, each interned once to a small integer key (`Metric.key`), so a recorder finds a
/// metric's state by indexing arrays instead of hashing its name on every sample.
///
/// Keys are process-wide: every worker's recorder, every decoded shard and segment sees the same key for the
/// same name, so `Recorder.merge` adds state by key. They are never written anywhere (results carry names), so a
/// key's value depends only on the order names were first made in this process, and nothing outside may rely on
/// it. A name is interned when a `Metric` value is made: the catalog's static metrics once, names built per event
/// once per value (call sites on a hot path keep their values; `RunBooks`' step table does).
enum MetricKeys {
    struct Table {
        var keyOf: [String: Int32] = [:]
        var count: Int32 = 0
    }

    static let table = Mutex(Table())

    /// The key of `name`, made at its first use.
    static func key(for name: String) -> Int32 {
        table.withLock { table in
            if let key = table.keyOf[name] { return key }
            let key = table.count
            table.keyOf[name] = key
            table.count += 1
            return key
        }
    }

    /// The key of `name` if some metric of that name was ever made; reads by name use it without interning.
    static func existingKey(for name: String) -> Int32? {
        table.withLock { $0.keyOf[name] }
    }
}
