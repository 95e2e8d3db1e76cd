import Dispatch
import EventPolling
import Transport
import XCTest

/// libcurl's client and the wire client on one event thread, made with the same configuration, so a test sends
/// the same request through each and compares what came back.
final class ClientPair: @unchecked Sendable {
    let queue = DispatchQueue(label: "test.client-pair")
    private var events: EventThread!
    private var curl: HTTPClient!
    private var wire: WireSender!

    /// Throws what `WireSender` throws for `configuration`, with nothing left running.
    init(configuration: HTTPClient.Configuration = HTTPClient.Configuration()) throws {
        let made: Result<Void, TransportError> = queue.sync {
            events = EventThread(queue: queue, name: "test.client-pair")
            curl = HTTPClient(queue: queue, configuration: configuration, events: events)
            do throws(TransportError) {
                wire = try WireSender(events: events, configuration: configuration)
                return .success(())
            } catch {
                curl.close()
                events.stop()
                return .failure(error)
            }
        }
        if case .failure(let error) = made {
            events.waitUntilStopped()
            throw error
        }
    }

    /// Sends `request` through the wire client (`wire`) or libcurl's, and waits (10 s at most) for the answer.
    func send(_ request: ClientRequest, wire useWire: Bool) -> Result<ClientResponse, TransportError> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<ClientResponse, TransportError>?
        let (wire, curl) = (self.wire!, self.curl!)
        queue.async {
            let completion: HTTPClient.Completion = { r in
                result = r
                done.signal()
            }
            if useWire {
                wire.send(request, completion: completion)
            } else {
                curl.send(request, completion: completion)
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return result ?? .failure(.other(code: -2, message: "test timed out"))
    }

    /// The kind of failure each client books for `request` (`-` for an answer): curl's, then the wire's.
    func failureKinds(_ request: ClientRequest) -> (curl: String, wire: String) {
        func kind(_ result: Result<ClientResponse, TransportError>) -> String {
            if case .failure(let error) = result { return error.kind }
            return "-"
        }
        return (kind(send(request, wire: false)), kind(send(request, wire: true)))
    }

    func close() {
        queue.sync {
            wire.close()
            curl.close()
            events.stop()
        }
        events.waitUntilStopped()
    }
}
