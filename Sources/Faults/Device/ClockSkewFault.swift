import Quantities

/// `device: { clock_skew: 2s }`: each device the window hits has its clock off by an amount drawn once per
/// (window, device), uniform within ± the skew; the times it sends the target are off by it.
public struct ClockSkewFault: DeviceFault {
    public static let names = ["clock_skew"]
    public static let family = FaultFamily.device
    public static let stream = DrawStream.clockSkew
    public let probability = 1.0
    public let skewNanos: UInt64

    public init?(window: FaultWindow) {
        guard let skew = window.device?.clockSkewNanos, skew > 0 else { return nil }
        skewNanos = skew
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let skew = window.device?.clockSkewNanos, skew > 0 else { return nil }
        return "clock_skew ±\(Quantity.format(nanos: skew))"
    }

    /// The offset of the device `draws` describe, in whole milliseconds.
    public func offsetMillis(_ draws: FaultDraws) -> Int64 {
        let unit = draws.schedule.draw(draws.window, draws.device, 0, Self.stream) * 2 - 1
        return Int64((unit * Double(skewNanos) / 1e6).rounded())
    }

    /// The `faults.csv` subject of a skewed device: `dev-7(+120ms)`.
    public static func subject(device: Int, offsetMillis: Int64) -> String {
        "dev-\(device)(\(offsetMillis >= 0 ? "+" : "")\(offsetMillis)ms)"
    }
}

extension FaultSchedule {
    /// Whether any window skews device clocks (asked on every request).
    public var hasClockSkew: Bool { windows.contains { ClockSkewFault(window: $0) != nil } }

    /// The clock offset of `device` at `sinceLoad` (in a call of `flow`, nil between calls): the first window
    /// with a skew that covers it decides; nil when none does.
    public func clockSkew(at sinceLoad: UInt64, device: Int, flow: String?)
        -> (window: Int, offsetMillis: Int64, note: FaultNote)? {
        for (i, w) in active(at: sinceLoad, device: device) {
            guard let fault = ClockSkewFault(window: w),
                  w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true else { continue }
            let draws = draws(i, device: device, subject: device, seq: 0, plannedSinceLoad: sinceLoad)
            return (i, fault.offsetMillis(draws), draws.note("device.clock_skewed"))
        }
        return nil
    }
}
