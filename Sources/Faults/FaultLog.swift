import Foundation
import Locking
import RunFormats

/// Every fault injected, for `faults.csv`: what, where, to which device and its push number. Shared by the push
/// sink's threads and the workers, so it takes a lock (faults are rare next to requests).
public final class FaultLog: Sendable {
    public struct Entry: Sendable {
        public let sinceLoadNanos: UInt64
        public let window: String
        public let kind: String
        public let device: Int
        public let seq: UInt64
        /// What was hit when it is not a device (`conn-3`, `target`).
        public var subject: String?
        /// The planned call (arrival index) and role whose push or action it hit, -1 when none.
        public var call: Int
        public var role: Int

        public init(sinceLoadNanos: UInt64, window: String, kind: String, device: Int, seq: UInt64,
                    subject: String? = nil, call: Int = -1, role: Int = -1) {
            self.sinceLoadNanos = sinceLoadNanos
            self.window = window
            self.kind = kind
            self.device = device
            self.seq = seq
            self.subject = subject
            self.call = call
            self.role = role
        }

        /// The entry as faults.csv writes it: a device is its subject (`dev-4`) unless another is given.
        public var row: FaultRow {
            FaultRow(sinceLoadNanos: sinceLoadNanos, window: window, kind: kind, subject: subject ?? FaultRow.deviceSubject(device),
                     call: call, role: role, seq: seq)
        }
    }

    private let entries = Mutex<[Entry]>([])
    /// The same entries indexed for attributing the calls that did not complete (`CallAttribution`).
    private let index = Mutex(FaultIndex())
    /// When socket storms ran (since the load started), for the workers that attribute the sockets they ended.
    private let storms = Mutex<[UInt64]>([])

    public init() {}

    public func add(_ entry: Entry) {
        if entry.kind.hasPrefix(SocketStormFault.storm) { storms.withLock { $0.append(entry.sinceLoadNanos) } }
        entries.withLock { $0.append(entry) }
        index.withLock { $0.add(entry) }
    }

    /// The kinds of the faults on planned call `call`'s path so far (`FaultIndex.kinds`), sorted.
    public func kinds(ofCall call: Int, devices: [Int], fromNanos: UInt64, toNanos: UInt64) -> [String] {
        index.withLock { $0.kinds(call: call, devices: devices, from: fromNanos, to: toNanos) }
    }

    /// Instants of the socket storms so far, since the load started. The fault controller logs a storm before it
    /// drops the sockets, so a worker that sees a socket end finds the storm that ended it here.
    public var stormInstants: [UInt64] { storms.withLock { $0 } }

    public var all: [Entry] { entries.withLock { $0 } }

    public static let header = FaultRow.header

    /// faults.csv: every entry as a `FaultRow`, by time, then call, role and number.
    public func csv() -> String {
        let sorted = all.sorted {
            ($0.sinceLoadNanos, $0.call, $0.role, $0.seq) < ($1.sinceLoadNanos, $1.call, $1.role, $1.seq)
        }
        return FaultRow.csv(sorted.map(\.row))
    }
}
