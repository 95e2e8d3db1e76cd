import Determinism
import Foundation
import Scenario
import Locking

/// The scenario's fault windows with every decision drawn from the seed: the same seed, device and push number
/// give the same fault, run after run (unlike Toxiproxy, whose seed flag its current source ignores).
struct FaultSchedule: Sendable {
    let windows: [FaultWindow]
    let seed: UInt64

    var isEmpty: Bool { windows.isEmpty }

    /// A uniform draw in [0, 1) for one decision, from (seed, window, device, sequence, salt) alone.
    func draw(_ window: Int, _ device: Int, _ seq: UInt64, _ salt: UInt64) -> Double {
        var z = seed ^ (UInt64(window) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(device) &* 0xC2B2_AE3D_27D4_EB4F)
            ^ (seq &* 0x1656_67B1_9E37_79F9) ^ (salt &* 0x27D4_EB2F_1656_67C5)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// A seeded generator for sampling a distribution for one decision.
    func rng(_ window: Int, _ device: Int, _ seq: UInt64, _ salt: UInt64) -> SeededRandom {
        SeededRandom(seed: seed, stream: UInt64(draw(window, device, seq, salt) * Double(UInt64.max >> 12)))
    }

    /// The windows active at `sinceLoad` that include `device` (each window picks its share of devices by seed).
    func active(at sinceLoad: UInt64, device: Int) -> [(index: Int, window: FaultWindow)] {
        var out: [(Int, FaultWindow)] = []
        for (i, w) in windows.enumerated() where w.contains(sinceLoad) {
            if w.devices >= 1 || draw(i, device, 0, 0xD0) < w.devices { out.append((i, w)) }
        }
        return out
    }

    /// The windows whose time covers the call planned at `plannedSinceLoad` and that include `device`. Faults
    /// on a call's pushes and devices belong to the window its call was *planned* in, so which pushes a window
    /// hits does not move with timing from run to run.
    /// `flow` is the call's flow: a window with `flows` hits only theirs.
    func active(forCallPlannedAt plannedSinceLoad: UInt64, device: Int, flow: String)
        -> [(index: Int, window: FaultWindow)] {
        active(at: plannedSinceLoad, device: device).filter {
            $0.window.flows.isEmpty || $0.window.flows.contains(flow)
        }
    }

    /// The key of one device's part in one call, for draws: the same call and role give the same draws whatever
    /// device the call happened to get.
    static func subject(call: Int, role: Int) -> Int { call << 4 | (role & 0xF) }

    /// Is `device` offline now (a device fault)?
    func offline(at sinceLoad: UInt64, device: Int) -> Bool {
        active(at: sinceLoad, device: device).contains { entry in
            guard let share = entry.window.device?.offline, share > 0 else { return false }
            return draw(entry.index, device, 0, 0x0FF) < share
        }
    }
}

/// Every fault injected, for `faults.csv`: what, where, to which device and its push number. Shared by the push
/// sink's threads and the workers, so it takes a lock (faults are rare next to requests).
final class FaultLog: Sendable {
    struct Entry: Sendable {
        let sinceLoadNanos: UInt64
        let window: String
        let kind: String
        let device: Int
        let seq: UInt64
        /// What was hit when it is not a device (`conn-3`, `target`).
        var subject: String? = nil
        /// The planned call (arrival index) and role whose push or action it hit, -1 when none.
        var call: Int = -1
        var role: Int = -1
    }

    private let entries = Mutex<[Entry]>([])

    func add(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    var all: [Entry] { entries.withLock { $0 } }

    static let header = "t_s,window,kind,subject,call,role,seq"

    func csv() -> String {
        var out = Self.header + "\n"
        let sorted = all.sorted {
            ($0.sinceLoadNanos, $0.call, $0.role, $0.seq) < ($1.sinceLoadNanos, $1.call, $1.role, $1.seq)
        }
        for e in sorted {
            out += String(format: "%.6f", Double(e.sinceLoadNanos) / 1e9)
                + ",\(e.window),\(e.kind),\(e.subject ?? "dev-\(e.device)"),\(e.call),\(e.role),\(e.seq)\n"
        }
        return out
    }
}

/// Which planned call and role each device is in, shared by the workers (who assign devices to calls) and the
/// push sink (which decides push faults on the gateway's threads), with each device's push number in its call.
/// A device keeps its last call until it gets the next one: a push that arrives after its call completed (an
/// `ended` racing the completion) still belongs to that call, so it is decided the same way every run.
final class DeviceCalls: Sendable {
    struct Slot: Sendable {
        var call = -1
        var role = -1
        /// Index of the call's flow in `DriverSettings.flows`.
        var flow = 0
        var plannedSinceLoad: UInt64 = 0
        var pushes: UInt64 = 0
    }

    private let slots: Mutex<[Slot]>

    init(devices: Int) { slots = Mutex(Array(repeating: Slot(), count: devices)) }

    func assign(_ device: Int, call: Int, role: Int, flow: Int, plannedSinceLoad: UInt64) {
        slots.withLock { $0[device] = Slot(call: call, role: role, flow: flow, plannedSinceLoad: plannedSinceLoad) }
    }

    /// The device's call as it stands, without counting a push; nil when it is in none.
    func current(_ device: Int) -> Slot? {
        slots.withLock { $0[device].call >= 0 ? $0[device] : nil }
    }

    /// The device's call, with the number of this push within it (1 for the first); nil when it is in none.
    func nextPush(_ device: Int) -> Slot? {
        slots.withLock { s -> Slot? in
            guard s[device].call >= 0 else { return nil }
            s[device].pushes += 1
            return s[device]
        }
    }
}
