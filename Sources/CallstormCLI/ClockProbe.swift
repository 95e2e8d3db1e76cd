import Dispatch
import Foundation
import Locking
import Transport

/// Measures this machine's clock against a server's, NTP-free, from the HTTP `Date` header.
///
/// `Date` has a resolution of one second, so a single answer bounds the offset to a 1 s window:
/// `Date <= local + offset < Date + 1`, with the local time taken at the midpoint of the request. Polling for a
/// little over a second catches the server's second boundary; intersecting every answer's window narrows the
/// offset to about the polling interval plus half the round trip. Shards probing the same target get offsets
/// against one clock, so the merged report can say how far apart their seconds were.
enum ClockProbe {
    static func measure(baseURL: String, samples: Int = 60, spacingMillis: Int = 20) -> ClockOffset? {
        let queue = DispatchQueue(label: "callstorm.clock-probe")
        let client = HTTPClient(queue: queue)
        defer { queue.sync { client.close() } }
        var lower = -Double.infinity
        var upper = Double.infinity
        var worstRTT = 0.0
        var answered = 0
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
                if answered == 0 { return nil }  // no Date header: nothing to measure against
                continue
            }
            answered += 1
            let mid = (sent + received) / 2
            worstRTT = max(worstRTT, received - sent)
            let server = date.timeIntervalSince1970
            lower = max(lower, server - mid)
            upper = min(upper, server + 1 - mid)
            usleep(useconds_t(spacingMillis * 1000))
        }
        guard answered > 0 else { return nil }
        if lower > upper { swap(&lower, &upper) }  // the server's clock stepped while probing
        return ClockOffset(method: "HTTP Date header of \(baseURL) (\(answered) samples)",
                           offsetSeconds: (lower + upper) / 2,
                           uncertaintySeconds: (upper - lower) / 2 + worstRTT / 2)
    }
}
