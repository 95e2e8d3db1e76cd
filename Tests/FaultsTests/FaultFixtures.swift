import Determinism
import Faults
import Quantities
import XCTest

/// Windows to decide with, and the draw as the driver computed it before faults had a module (with its bare
/// salts), so a test can pin that a fault draws exactly what it drew then.
enum FaultFixtures {
    static let seed: UInt64 = 42

    /// A 10 s window from 0 on every device.
    static func window(push: PushFaults? = nil, device: DeviceFaultSettings? = nil, network: NetworkFaults? = nil,
                       target: TargetFaults? = nil, sip: SIPFaults? = nil, name: String = "w") -> FaultWindow {
        FaultWindow(name: name, atNanos: 0, forNanos: 10_000_000_000, push: push, device: device, network: network,
                    target: target, sip: sip)
    }

    static func sip(_ edit: (inout SIPFaults) -> Void) -> SIPFaults {
        var faults = SIPFaults()
        edit(&faults)
        return faults
    }

    static func push(_ edit: (inout PushFaults) -> Void) -> PushFaults {
        var faults = PushFaults()
        edit(&faults)
        return faults
    }

    static func device(_ edit: (inout DeviceFaultSettings) -> Void) -> DeviceFaultSettings {
        var faults = DeviceFaultSettings()
        edit(&faults)
        return faults
    }

    /// The draw of `FaultSchedule` before named streams, written out again on purpose as the reference.
    static func legacyDraw(seed: UInt64 = seed, _ window: Int, _ device: Int, _ seq: UInt64, _ salt: UInt64)
        -> Double {
        var z = seed ^ (UInt64(window) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(device) &* 0xC2B2_AE3D_27D4_EB4F)
            ^ (seq &* 0x1656_67B1_9E37_79F9) ^ (salt &* 0x27D4_EB2F_1656_67C5)
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// The legacy sample of a distribution for one decision.
    static func legacySample(_ d: Distribution, _ window: Int, _ subject: Int, _ seq: UInt64, _ salt: UInt64)
        -> UInt64 {
        var rng = SeededRandom(seed: seed, stream: UInt64(legacyDraw(window, subject, seq, salt)
                                                             * Double(UInt64.max >> 12)))
        return d.sample(using: &rng)
    }

    /// The push decision of push `seq` of call 5, role 1 (device 9) in a schedule of `windows`.
    static func decide(_ windows: [FaultWindow], seq: UInt64, device: Int = 9) -> PushDecision {
        FaultSchedule(windows: windows, seed: seed).pushDecision(
            device: device, subject: FaultSchedule.subject(call: 5, role: 1), seq: seq, plannedSinceLoad: 1_000,
            flow: "incoming-1to1")
    }

    static let subject = FaultSchedule.subject(call: 5, role: 1)
}

enum NetworkFixtures {
    /// The toxics window 2 with these `network:` settings puts on the proxy.
    static func specs(_ toxics: [String: [String: Double]], direction: String = "downstream",
                      probability: Double = 1) -> [ToxicPlan] {
        let network = NetworkFaults(toxics: toxics, direction: direction, probability: probability)
        return NetworkPlan.toxics(of: FaultFixtures.window(network: network), index: 2)
    }
}
