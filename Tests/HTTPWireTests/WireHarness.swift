import StreamIO
import CLinux
import Dispatch
import EventPolling
import Foundation
@testable import HTTPWire
import Locking
import WebSocketClient
#if canImport(Glibc)
import Glibc
#endif

/// A `WireClient` on its own event thread, driven from a test: `get` blocks until the completion ran.
final class WireHarness: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.wire")
    private var thread: EventThread!
    private(set) var client: WireClient!

    init(configuration: WireClient.Configuration = .init(), tls: ClientTLS? = nil) {
        queue.sync {
            thread = EventThread(queue: queue, name: "test.wire")
            client = WireClient(thread: thread, configuration: configuration, tls: tls)
        }
    }

    /// Sends `method url` and waits (up to 20 s, a hang is a failure) for its result.
    func request(_ url: String, method: String = "GET", timeoutMillis: Int = 5_000)
        -> Result<WireResponse, WireError> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<WireResponse, WireError>>(.failure(.clientClosed))
        let request: WireRequest
        do {
            request = try WireRequest(method: method, url: url, timeoutMillis: timeoutMillis)
        } catch {
            return .failure(error)
        }
        queue.sync {
            client.send(request) { outcome in
                result.withLock { $0 = outcome }
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + 20) == .success else { return .failure(.responseTimeout(millis: -1)) }
        return result.withLock { $0 }
    }

    var stats: WireClient.Stats { queue.sync { client.stats } }

    func shutDown() {
        queue.sync {
            client.close()
            thread.stop()
        }
        thread.waitUntilStopped()
    }
}
