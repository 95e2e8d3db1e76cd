@testable import Driver
import Foundation
import OTLP
import SIPEmbedded
import XCTest

/// Issue 38: with `observability.trace.sip_header` the SIP requests a device starts for a sampled call carry the
/// call's W3C traceparent in that header, naming a trace the call's spans are exported under; off by default,
/// and never on a call outside the sampled share.
final class SIPTraceContextTests: XCTestCase {
    /// The exported spans, collected on the loop (the rig's only thread).
    private final class Exported: @unchecked Sendable {
        var spans: [OTLPSpan] = []
    }

    private func run(share: Double, header: String?, yaml: String = SIPRig.scenario(rate: "1/s", seconds: 2,
                                                                                      sleep: false))
        throws -> (rig: SIPRig, exported: Exported) {
        let exported = Exported()
        let rig = try SIPRig(yaml) { settings in
            settings.tracing.spans = { worker in
                var mine = CallTraceBuffer.Settings(seed: 26, shard: 0, worker: worker, share: share,
                                                    unixOffsetNanos: 0)
                mine.sipTraceHeader = header
                return CallTraceBuffer(settings: mine, directory: nil) { exported.spans += $0 }
            }
        }
        rig.run(limit: 300 * SIPRig.second)
        return (rig, exported)
    }

    /// The requests devices sent to the proxy (not the proxy's forwards), by method, with their trace header.
    private func requests(_ rig: SIPRig, header: String) throws -> [(method: String, value: String?)] {
        let port = try XCTUnwrap(rig.settings.scenario.sip?.port)
        return rig.network.delivered.filter { $0.to.port == port && !$0.label.first!.isNumber }.map { packet in
            let text = String(decoding: packet.bytes, as: UTF8.self)
            let line = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix(header.lowercased() + ":") }
            return (packet.label, line.map { $0.dropFirst(header.count + 1).trimmingCharacters(in: .whitespaces) })
        }
    }

    func testASampledCallsInviteAndByeCarryItsTraceparentInTheNamedHeader() throws {
        let (rig, exported) = try run(share: 1, header: "Traceparent")
        let sent = try requests(rig, header: "Traceparent")
        let calls = Set(exported.spans.filter { $0.name == "call" }.map(\.traceID.hex))
        XCTAssertGreaterThan(calls.count, 0)
        let inCall = sent.filter { $0.method == "INVITE" || $0.method == "BYE" }
        XCTAssertGreaterThan(inCall.count, 0, "\(sent.map(\.method))")
        for request in inCall {
            let parts = try XCTUnwrap(request.value, "\(request.method) without the header").split(separator: "-")
            XCTAssertEqual(parts.count, 4)
            XCTAssertTrue(calls.contains(String(parts[1])), "\(request.method): trace \(parts[1]) not exported")
        }
        // A REGISTER belongs to the device, not to a call.
        XCTAssertTrue(sent.filter { $0.method == "REGISTER" }.allSatisfy { $0.value == nil })
    }

    func testNoHeaderWhenTheScenarioNamesNoneOrTheCallIsNotSampled() throws {
        let (unnamed, _) = try run(share: 1, header: nil)
        XCTAssertTrue(try requests(unnamed, header: "Traceparent").allSatisfy { $0.value == nil })
        let (unsampled, exported) = try run(share: 0, header: "Traceparent")
        let sent = try requests(unsampled, header: "Traceparent")
        XCTAssertTrue(sent.contains { $0.method == "INVITE" })
        XCTAssertTrue(sent.allSatisfy { $0.value == nil })
        XCTAssertEqual(exported.spans, [], "nothing failed, so no call is exported at share 0")
    }

    /// Faults the SIP kind injects into a call (datagrams lost or delayed) and push faults are `fault` events on
    /// its call span, and make an unsampled call exported.
    func testSIPAndPushFaultsAreEventsOnTheCallsTheyHit() throws {
        let yaml = SIPRig.scenario(devices: 8, rate: "4/s", seconds: 2, actionTimeout: "10s", extra: """
            faults:
              - name: lossy-and-twice
                at: 0s
                for: 2s
                sip: { loss: 15%, delay: { uniform: [0ms, 100ms] } }
                push: { duplicate: 100% }

            """)
        let (_, exported) = try run(share: 0, header: nil, yaml: yaml)
        let roots = exported.spans.filter { $0.name == "call" }
        XCTAssertGreaterThan(roots.count, 0, "faulted calls are exported at share 0")
        XCTAssertTrue(roots.allSatisfy { !$0.events.isEmpty }, "only faulted calls are exported at share 0")
        let kinds = Set(roots.flatMap(\.events).flatMap(\.attributes).filter { $0.key == "callstorm.fault.kind" }
            .map { "\($0.value)" })
        XCTAssertTrue(kinds.contains { $0.contains("sip.message_") }, "\(kinds)")
        XCTAssertTrue(kinds.contains { $0.contains("push.duplicate") }, "\(kinds)")
    }
}
