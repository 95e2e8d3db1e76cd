import Metrics
import Locking

/// The two ways pushes come into the gateway.
public enum Ingress: String, Sendable, CaseIterable {
    case apns
    case fcm
}

/// What one ingress saw: pushes accepted, rejected by reason, request bytes, and the gateway's own latency
/// (request fully received → response handed to the server), in microseconds.
public struct IngressStats: Sendable, Equatable {
    public var accepted = 0
    public var rejected: [String: Int] = [:]
    public var bytesReceived = 0
    public var latencyMicros = HdrHistogram(highestTrackableValue: 60_000_000)

    public init() {}

    public var rejectedTotal: Int { rejected.values.reduce(0, +) }
}

/// Live per-ingress counters. Sendable: each ingress's numbers sit behind its own mutex; a push takes it once.
final class GatewayMetrics: Sendable {
    private final class Slot: Sendable {
        let stats = Mutex(IngressStats())
    }

    private let apns = Slot()
    private let fcm = Slot()

    private func slot(_ ingress: Ingress) -> Slot {
        ingress == .apns ? apns : fcm
    }

    func record(_ ingress: Ingress, rejectedReason: String?, bytes: Int, latencyNanos: UInt64) {
        let micros = Int64(min(latencyNanos / 1000, 60_000_000))
        slot(ingress).stats.withLock { stats in
            if let rejectedReason {
                stats.rejected[rejectedReason, default: 0] += 1
            } else {
                stats.accepted += 1
            }
            stats.bytesReceived += bytes
            stats.latencyMicros.record(max(micros, 1))
        }
    }

    func snapshot(_ ingress: Ingress) -> IngressStats {
        slot(ingress).stats.withLock { $0 }
    }
}
