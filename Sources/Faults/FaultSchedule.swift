import Determinism

/// The scenario's fault windows with every decision drawn from the seed: the same seed, device and push number
/// give the same fault, run after run (unlike Toxiproxy, whose seed flag its current source ignores).
public struct FaultSchedule: Sendable {
    public let windows: [FaultWindow]
    public let seed: UInt64
    /// Each window's faults on the push path, in the order they decide (from `FaultRegistry.pushPath`).
    let pushPath: [[any PushPathFault]]

    public init(windows: [FaultWindow], seed: UInt64) {
        self.windows = windows
        self.seed = seed
        self.pushPath = windows.map(FaultRegistry.pushPath(of:))
    }

    public var isEmpty: Bool { windows.isEmpty }

    /// A uniform draw in [0, 1) for one decision, from (seed, window, subject, sequence, stream) alone.
    public func draw(_ window: Int, _ subject: Int, _ seq: UInt64, _ stream: DrawStream) -> Double {
        draw(window, subject, seq, salt: stream.salt)
    }

    /// The same draw by a bare salt, for callers not yet moved to a named stream (the driver's clock skew).
    public func draw(_ window: Int, _ subject: Int, _ seq: UInt64, _ salt: UInt64) -> Double {
        draw(window, subject, seq, salt: salt)
    }

    private func draw(_ window: Int, _ subject: Int, _ seq: UInt64, salt: UInt64) -> Double {
        var z = seed ^ (UInt64(window) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(subject) &* 0xC2B2_AE3D_27D4_EB4F)
            ^ (seq &* 0x1656_67B1_9E37_79F9) ^ (salt &* 0x27D4_EB2F_1656_67C5)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// A seeded generator for sampling a distribution for one decision.
    public func rng(_ window: Int, _ subject: Int, _ seq: UInt64, _ stream: DrawStream) -> SeededRandom {
        SeededRandom(seed: seed, stream: UInt64(draw(window, subject, seq, stream) * Double(UInt64.max >> 12)))
    }

    /// The windows active at `sinceLoad` that include `device` (each window picks its share of devices by seed).
    public func active(at sinceLoad: UInt64, device: Int) -> [(index: Int, window: FaultWindow)] {
        var out: [(Int, FaultWindow)] = []
        for (i, w) in windows.enumerated() where w.contains(sinceLoad) {
            if w.devices >= 1 || draw(i, device, 0, .membership) < w.devices { out.append((i, w)) }
        }
        return out
    }

    /// The windows whose time covers the call planned at `plannedSinceLoad` and that include `device`. Faults
    /// on a call's pushes and devices belong to the window its call was *planned* in, so which pushes a window
    /// hits does not move with timing from run to run.
    /// `flow` is the call's flow: a window with `flows` hits only theirs.
    public func active(forCallPlannedAt plannedSinceLoad: UInt64, device: Int, flow: String)
        -> [(index: Int, window: FaultWindow)] {
        active(at: plannedSinceLoad, device: device).filter {
            $0.window.flows.isEmpty || $0.window.flows.contains(flow)
        }
    }

    /// The key of one device's part in one call, for draws: the same call and role give the same draws whatever
    /// device the call happened to get.
    public static func subject(call: Int, role: Int) -> Int { call << 4 | (role & 0xF) }

    /// The draws of one subject's decisions in window `index` (at the strength of `plannedSinceLoad`).
    func draws(_ index: Int, device: Int, subject: Int, seq: UInt64, plannedSinceLoad: UInt64) -> FaultDraws {
        FaultDraws(schedule: self, window: index, windowName: windows[index].name, device: device, subject: subject,
                   seq: seq, strength: windows[index].intensity(at: plannedSinceLoad))
    }
}
