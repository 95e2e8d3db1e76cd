import Faults
import Determinism
import Foundation
import Metrics
import PushModel

/// The device faults a worker decides (media setup, report delay, offline requests, network routes, clock skew),
/// each drawn from the seed by the rules in `FaultSchedule`; the push-path faults are the push sink's
/// (`DevicePushSink`), the socket faults the sockets' (`DeviceSockets+Faults`). Every fault that acts is counted
/// (`faults.<kind>`) and logged (faults.csv).
///
/// Ownership rule: touched only on the worker's loop, except `deviceCalls` (shared with the push sink).
final class DeviceFaults {
    let schedule: FaultSchedule
    let log: FaultLog
    /// Shared with the push sink: which call each device is in (set here, read there).
    let deviceCalls: DeviceCalls
    /// The plan's zero (monotonic ns); 0 until the load starts: no faults during registration.
    var loadStart: UInt64 = 0
    /// Whether any window skews device clocks (checked on every request).
    private let hasClockSkew: Bool
    /// (window << 32 | device) of the clock skews already in the fault log.
    private var skewsLogged: Set<Int> = []
    let table: CallTable
    let books: RunBooks
    private let clock: Clock

    init(schedule: FaultSchedule, log: FaultLog, deviceCalls: DeviceCalls, table: CallTable, books: RunBooks,
         clock: Clock) {
        self.schedule = schedule
        self.log = log
        self.deviceCalls = deviceCalls
        self.hasClockSkew = schedule.windows.contains { ($0.device?.clockSkewNanos ?? 0) > 0 }
        self.table = table
        self.books = books
        self.clock = clock
    }

    var isEmpty: Bool { schedule.isEmpty }

    enum MediaFault {
        case failure
        case delay(UInt64)
    }

    /// A device fault of the active windows on media setup for this join, decided from the seed.
    func mediaFault(_ local: Int, now: UInt64) -> MediaFault? {
        guard !schedule.isEmpty, let since = sinceLoad(), let planned = table.faultTime(local),
              let key = table.faultSubject(local) else { return nil }
        let device = table.devices[local].identity.index
        // The number of this action in its call: the same join of the same call draws the same, every run.
        let seq = UInt64(table.calls[key.call]?.log.count ?? 0)
        let flow = table.calls[key.call]?.flow.name ?? ""
        guard let (decision, note) = schedule.joinDecision(device: device, subject: key.subject, seq: seq,
                                                           plannedSinceLoad: planned, flow: flow) else { return nil }
        books.count(.fault(note.kind), at: now)
        books.tracer?.fault(call: key.call, kind: note.kind, window: note.window, now: now)
        log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind, device: device, seq: seq,
                      call: key.call, role: key.role))
        switch decision {
        case .fail: return .failure
        case .delay(let nanos): return .delay(nanos)
        }
    }

    /// A slow app (a device fault): how long the VoIP push's report is put off, drawn from the seed; nil when
    /// it is reported at once.
    func reportDelay(_ push: APNsPush, local: Int, now: UInt64) -> UInt64? {
        guard push.pushType == .voip, !schedule.isEmpty, let since = sinceLoad(), let planned = table.faultTime(local),
              let key = table.faultSubject(local) else { return nil }
        let device = table.devices[local].identity.index
        let flow = table.calls[key.call]?.flow.name ?? ""
        guard let (delay, note) = schedule.reportDelay(device: device, subject: key.subject,
                                                       plannedSinceLoad: planned, flow: flow) else { return nil }
        books.count(.fault(note.kind), at: now)
        books.tracer?.fault(call: key.call, kind: note.kind, window: note.window, now: now)
        log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind, device: device, seq: 0,
                      call: key.call, role: key.role))
        return delay
    }

    /// An offline phone reaches nobody (a device fault): its requests fail like a dead network.
    func isOffline(_ local: Int) -> Bool {
        guard !schedule.isEmpty, loadStart > 0, let since = table.faultTime(local) ?? sinceLoad() else { return false }
        return schedule.offline(at: since, device: table.devices[local].identity.index)
    }

    /// Inside a network window each request has a connection of its own, so the proxy's per-connection draw is
    /// made for every request (see NetworkFaults.freshConnections).
    func needsFreshConnection() -> Bool {
        guard !schedule.isEmpty, let since = sinceLoad() else { return false }
        return schedule.windows.contains { $0.network?.freshConnections == true && $0.contains(since) }
    }

    /// The proxy of an open network window that hits only some devices, when it hits this one (its share of
    /// devices, drawn from the seed; its flows, by the device's current call); nil sends to the target as usual.
    func networkRoute(_ local: Int, routes: [Int: String]) -> String? {
        guard !routes.isEmpty, let since = sinceLoad() else { return nil }
        let flow = table.flowName(local)
        for (i, w) in schedule.active(at: since, device: table.devices[local].identity.index) {
            guard let url = routes[i] else { continue }
            if w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true { return url }
        }
        return nil
    }

    /// Which side of the fault windows a push falls on, by the rule injection uses (its call's planned time, else
    /// when it was accepted), for per-window push metrics: `fault.<window>` (the first window covering it) or
    /// `no_fault`; nil when the scenario has no faults.
    func scope(_ local: Int, acceptedNanos: UInt64) -> String? {
        guard !schedule.isEmpty, loadStart > 0 else { return nil }
        let since = table.faultTime(local) ?? (acceptedNanos > loadStart ? acceptedNanos - loadStart : 0)
        return schedule.windows.first { $0.contains(since) }.map { "fault.\($0.name)" } ?? "no_fault"
    }

    /// Nanoseconds since the load started, once it has.
    func sinceLoad() -> UInt64? {
        let now = clock.nowNanos()
        return loadStart > 0 && now > loadStart ? now - loadStart : nil
    }

    // MARK: - Device clocks

    /// The device's clock offset in ms: drawn from the seed once per (window, device), uniform within ± the
    /// window's `clock_skew`, for the window that covers the device's call (by its planned time) or, between
    /// calls, now. 0 when none does. Every time a device sends the target (`${device.time}`, the reference
    /// join's `reportedAt`) carries it.
    func clockOffsetMillis(_ local: Int) -> Int64 {
        guard hasClockSkew, loadStart > 0, let since = table.faultTime(local) ?? sinceLoad() else { return 0 }
        let device = table.devices[local].identity.index
        let flow = table.flowName(local)
        for (i, w) in schedule.active(at: since, device: device) {
            guard let skew = w.device?.clockSkewNanos, skew > 0,
                  w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true else { continue }
            let offset = Int64(((schedule.draw(i, device, 0, 0xC10C) * 2 - 1) * Double(skew) / 1e6).rounded())
            if skewsLogged.insert(i << 32 | device).inserted {
                books.count(.fault("device.clock_skewed"), at: clock.nowNanos())
                log.add(.init(sinceLoadNanos: sinceLoad() ?? since, window: w.name, kind: "device.clock_skewed",
                              device: device, seq: 0, subject: "dev-\(device)(\(offset >= 0 ? "+" : "")\(offset)ms)"))
            }
            return offset
        }
        return 0
    }

    /// Epoch milliseconds as the device's clock reads them now.
    func deviceTimeMillis(_ local: Int) -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000) + clockOffsetMillis(local)
    }

    /// When the device reported conversation `uuid`'s VoIP push, by its own clock (epoch ms); nil if it did not.
    func reportedAtMillis(_ local: Int, _ uuid: String) -> Int64? {
        guard let reported = table.devices[local].reportedAt[uuid] else { return nil }
        let agoMillis = Int64((clock.nowNanos() &- reported) / 1_000_000)
        return deviceTimeMillis(local) - agoMillis
    }
}
