import Foundation

/// How large a Kamailio started for a run must be for the load the run puts on it: its shared memory (`-m`), its
/// private memory per process (`-M`) and its SIP worker processes (`-n`, `-N`). A value computed from the load
/// alone, so the sizing is tested without starting anything; `callstorm run` applies the scenario's explicit
/// `target.sip.kamailio` settings over it.
///
/// Why shared memory grows with the rate and not with the calls in progress: tm keeps every transaction in shared
/// memory until 5 s (its wait timer) after the transaction's final answer, so a proxy carries about
/// rate × transactions per call × (5 s + the transaction's own life) of them at once, whatever the call's length.
/// Measured on this kind of machine (docs/SIP.md): 64 MB ran out at 400 calls/s of the four-transaction hold call
/// (3,228 "out of mem" lines, 2,337 of 4,000 calls answered 500), 256 MB at 800/s, 1,024 MB held 800/s; SIPp's
/// hold call at 400/s for 10 s took Kamailio's shared memory to a peak of 131 MB (2.8 MB idle), ~14 KB per
/// transaction. Shared memory is reserved, not touched, until used, so headroom costs address space, not memory.
public struct KamailioSizing: Sendable, Equatable {
    /// What the run will put on the server.
    public struct Load: Sendable, Equatable {
        /// Devices registered at once (one usrloc binding each).
        public var devices: Int
        /// The highest planned call rate, per second.
        public var peakCallsPerSecond: Double
        /// SIP transactions one call makes at the proxy (INVITE, each re-INVITE, BYE or CANCEL).
        public var transactionsPerCall: Int
        /// How long a parked INVITE may wait for its woken device (the push route's timeout); nil without it.
        public var pushTimeoutSeconds: Double?

        public init(devices: Int, peakCallsPerSecond: Double, transactionsPerCall: Int = 4,
                    pushTimeoutSeconds: Double? = nil) {
            self.devices = devices
            self.peakCallsPerSecond = peakCallsPerSecond
            self.transactionsPerCall = transactionsPerCall
            self.pushTimeoutSeconds = pushTimeoutSeconds
        }
    }

    /// `-m`, MB.
    public var sharedMemoryMB: Int
    /// `-M`, MB (per process).
    public var privateMemoryMB: Int
    /// `-n` and `-N`: UDP workers per listener and TCP readers.
    public var children: Int
    /// How the figures were reached, for the run's facts (`sized for …`).
    public var basis: String

    public init(sharedMemoryMB: Int, privateMemoryMB: Int, children: Int, basis: String) {
        self.sharedMemoryMB = sharedMemoryMB
        self.privateMemoryMB = privateMemoryMB
        self.children = children
        self.basis = basis
    }

    // MARK: - The model

    /// Shared memory one transaction holds with its request clone, the relayed copy, the reply and the
    /// allocator's fragmentation: 14.2 KB measured (128.5 MB over idle for 400/s × 4 × ~5.8 s).
    static let transactionKB = 16.0
    /// One usrloc binding (an RFC 8599 Contact is long) with its record and hash entry.
    static let bindingKB = 4.0
    /// Modules, tm's hash table, the core: what an idle server holds.
    static let baseMB = 32.0
    /// tm's wait timer: a transaction stays this long after its final answer.
    static let lingerSeconds = 5.0
    /// The life of an ordinary transaction before its final answer, beyond the wait timer.
    static let answerSeconds = 1.0
    /// Headroom over the estimate: bursts of the arrival process, retransmissions, fragmentation.
    static let headroom = 1.5
    /// Never below Kamailio's own default, and rounded up to this step.
    static let floorMB = 64
    static let stepMB = 64
    /// Each SIP worker takes this many calls/s before another one is added; more workers than that only
    /// contend for the same cores. A call on the push route carries more SIP work (each woken device's REGISTER
    /// with its digest challenge), so it gets more of them. (The push itself waits for the gateway in one of the
    /// configuration's task workers, `PUSH_WORKERS`, not in a SIP worker.)
    static let callsPerWorker = 400.0
    static let pushCallsPerWorker = 200.0
    static let minimumChildren = 2
    static let maximumChildren = 16

    /// The sizing for `load`.
    public static func sized(for load: Load) -> KamailioSizing {
        let rate = max(0, load.peakCallsPerSecond)
        // A parked INVITE lives until its device wakes (at most the push timeout), not one second.
        let life = lingerSeconds + (load.pushTimeoutSeconds.map { max(answerSeconds, $0 / 4) } ?? answerSeconds)
        let transactions = rate * Double(max(1, load.transactionsPerCall)) * life
        let estimate = baseMB + transactions * transactionKB / 1024 + Double(max(0, load.devices)) * bindingKB / 1024
        let shared = max(floorMB, roundUp(estimate * headroom))
        let perWorker = load.pushTimeoutSeconds == nil ? callsPerWorker : pushCallsPerWorker
        let children = min(maximumChildren, max(minimumChildren, Int((rate / perWorker).rounded(.up))))
        // Private memory is per message and per process, not per call: Kamailio's default 8 MB, doubled for
        // very many devices (the registrar's replies list every binding it keeps for the user it answers).
        let privateMB = load.devices > 20_000 ? 16 : 8
        let basis = "sized for \(formatted(rate)) calls/s peak × \(load.transactionsPerCall) transactions per call, "
            + "\(load.devices) devices"
        return KamailioSizing(sharedMemoryMB: shared, privateMemoryMB: privateMB, children: children, basis: basis)
    }

    /// The sizing with the scenario's explicit settings over it (each nil keeps the computed figure); the basis
    /// names what was set.
    public func overridden(sharedMemoryMB shared: Int?, privateMemoryMB priv: Int?, children workers: Int?)
        -> KamailioSizing {
        var out = self
        var set: [String] = []
        if let shared {
            out.sharedMemoryMB = shared
            set.append("shared_memory_mb")
        }
        if let priv {
            out.privateMemoryMB = priv
            set.append("private_memory_mb")
        }
        if let workers {
            out.children = workers
            set.append("children")
        }
        if !set.isEmpty { out.basis += "; set by the scenario: " + set.joined(separator: ", ") }
        return out
    }

    private static func roundUp(_ mb: Double) -> Int {
        Int((mb / Double(stepMB)).rounded(.up)) * stepMB
    }

    private static func formatted(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(format: "%.1f", rate)
    }
}
