import Foundation

/// An answer a push scripts for itself: `"callstorm-answer": {"status": 429, "reason": "TooManyRequests",
/// "delay_ms": 300}` anywhere at the top level of its payload makes the gateway answer that one push so, after the
/// delay (apns_erl_sim's idea), for precise tests of a server's APNs client. `status` 200 (or no status and no
/// reason) accepts the push after the delay; a reason alone takes its own status; a status alone takes the usual
/// reason for it. A script that cannot be read is ignored.
public struct ScriptedAnswer: Sendable, Equatable {
    public static let key = "callstorm-answer"
    private static let keyBytes = Array("\"\(key)\"".utf8)

    /// nil accepts the push.
    public var rejection: APNsReason?
    public var delayMillis: Int

    public init(rejection: APNsReason?, delayMillis: Int = 0) {
        self.rejection = rejection
        self.delayMillis = delayMillis
    }

    /// The script in `payload`, or nil. Costs one byte search when there is none (the gateway's hot path).
    public init?(payload: [UInt8]) {
        guard payload.count >= Self.keyBytes.count else { return nil }
        guard Self.contains(payload, Self.keyBytes),
              let json = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              let script = json[Self.key] as? [String: Any] else { return nil }
        let status = (script["status"] as? NSNumber)?.intValue
        let reason = (script["reason"] as? String).flatMap(APNsReason.init(rawValue:))
        if script["reason"] != nil, reason == nil { return nil }
        if let reason, let status, reason.status != status { return nil }
        switch (reason, status) {
        case (let r?, _): rejection = r
        case (nil, nil), (nil, 200?): rejection = nil
        case (nil, let s?):
            guard let r = Self.usualReason[s] else { return nil }
            rejection = r
        }
        delayMillis = max(0, min(60_000, (script["delay_ms"] as? NSNumber)?.intValue ?? 0))
    }

    /// A plain byte search: the generic `firstRange(of:)` costs far more per push than the whole APNs validation,
    /// and a Swift loop over the payload's bytes still cost about a thousand instructions per push (callgrind).
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBytes { n in ByteSearch.contains(h, n) }
        }
    }

    static let usualReason: [Int: APNsReason] = [
        400: .badDeviceToken, 403: .forbidden, 404: .badPath, 405: .methodNotAllowed, 410: .unregistered,
        413: .payloadTooLarge, 429: .tooManyRequests, 500: .internalServerError, 503: .serviceUnavailable,
    ]
}
