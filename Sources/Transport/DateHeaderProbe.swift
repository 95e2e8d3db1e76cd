import Determinism
import Dispatch
import Foundation
import Locking

/// Reads a server's clock from its HTTP `Date` header, `samples` times `spacingMillis` apart, into a
/// `ClockOffsetEstimate` (which holds the arithmetic). Shards probing the same server get offsets against one
/// clock, so a merged report can say how far apart their seconds were.
public enum DateHeaderProbe {
    /// Nil when the server never answered with a `Date` header.
    public static func measure(baseURL: String, samples: Int = 60, spacingMillis: Int = 20) -> ClockOffsetEstimate? {
        let queue = DispatchQueue(label: "callstorm.clock-probe")
        let client = HTTPClient(queue: queue)
        defer { queue.sync { client.close() } }
        var estimate = ClockOffsetEstimate()
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        for _ in 0..<samples {
            let done = DispatchSemaphore(value: 0)
            let answer = Mutex<String?>(nil)
            let sent = Date().timeIntervalSince1970
            queue.async {
                client.send(ClientRequest(method: "GET", url: baseURL + "/", timeoutMillis: 2_000)) { result in
                    if case .success(let response) = result { answer.withLock { $0 = response.header("date") } }
                    done.signal()
                }
            }
            done.wait()
            let received = Date().timeIntervalSince1970
            guard let header = answer.withLock({ $0 }), let date = formatter.date(from: header) else {
                if estimate.samples == 0 { return nil }  // no Date header: nothing to measure against
                continue
            }
            estimate.add(sentSeconds: sent, receivedSeconds: received, referenceSecond: date.timeIntervalSince1970)
            // The spacing is what lets the answers straddle the server's second boundary: real time is the point.
            usleep(useconds_t(spacingMillis * 1000))
        }
        return estimate.samples > 0 ? estimate : nil
    }
}
