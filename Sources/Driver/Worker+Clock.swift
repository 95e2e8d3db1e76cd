import Chaos
import Foundation
import Metrics

/// Device clocks: a device reads the wall clock plus the offset of a `clock_skew` window that hits it, and every
/// time it sends the target (`${device.time}`, the reference join's `reportedAt`) carries that offset.
extension Worker {
    /// The device's clock offset in ms: drawn from the seed once per (window, device), uniform within ± the
    /// window's `clock_skew`, for the window that covers the device's call (by its planned time) or, between
    /// calls, now. 0 when none does.
    func clockOffsetMillis(_ local: Int) -> Int64 {
        guard hasClockSkew, loadStart > 0, let since = faultTime(local) ?? sinceLoad() else { return 0 }
        let device = devices[local].identity.index
        let flow = devices[local].callID.flatMap { calls[$0]?.flow.name }
        for (i, w) in faults.active(at: since, device: device) {
            guard let skew = w.device?.clockSkewNanos, skew > 0,
                  w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true else { continue }
            let offset = Int64(((faults.draw(i, device, 0, 0xC10C) * 2 - 1) * Double(skew) / 1e6).rounded())
            if skewsLogged.insert(i << 32 | device).inserted {
                recorder.count(.fault("device.clock_skewed"), atNanos: clock.nowNanos())
                faultLog.add(.init(sinceLoadNanos: sinceLoad() ?? since, window: w.name, kind: "device.clock_skewed",
                                   device: device, seq: 0,
                                   subject: "dev-\(device)(\(offset >= 0 ? "+" : "")\(offset)ms)"))
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
        guard let reported = devices[local].reportedAt[uuid] else { return nil }
        let agoMillis = Int64((clock.nowNanos() &- reported) / 1_000_000)
        return deviceTimeMillis(local) - agoMillis
    }
}
