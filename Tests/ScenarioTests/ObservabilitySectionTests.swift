import XCTest
@testable import Scenario

/// Issue 38: `observability:` (OTLP endpoint, headers, interval; the share of calls traced; SIP's trace header)
/// and `target.api.trace_header`, read with their defaults and refused with the place of the mistake.
final class ObservabilitySectionTests: XCTestCase {
    private let base = """
        name: otel
        devices: 10
        load:
          - hold: { rate: 1/s, for: 5s }

        """

    private func load(_ section: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(base + section, file: "otel.yaml")
    }

    func testObservabilitySectionIsReadAndEmptyByDefault() throws {
        let spec = try load("""
            observability:
              otlp: { endpoint: "http://127.0.0.1:4318", headers: { x-api-key: "a b", X-Team: t1 }, interval: 2s }
              trace: { share: 25%, sip_header: Traceparent }

            """).get().observability
        XCTAssertEqual(spec.endpoint, "http://127.0.0.1:4318")
        XCTAssertEqual(spec.headers, [.init(name: "x-api-key", value: "a b"), .init(name: "X-Team", value: "t1")])
        XCTAssertEqual(spec.intervalNanos, 2_000_000_000)
        XCTAssertEqual(spec.traceShare, 0.25)
        XCTAssertEqual(spec.sipTraceHeader, "Traceparent")
        XCTAssertEqual(try load("").get().observability, ObservabilitySpec())
        XCTAssertEqual(try load("observability: { trace: { share: 0.5 } }\n").get().observability.traceShare, 0.5)
    }

    func testBadObservabilitySectionsNameTheirPlace() {
        let cases: [(String, String)] = [
            ("observability: { otlp: { endpoint: \"127.0.0.1:4318\" } }\n",
             "otel.yaml:5:36: error: 'observability.otlp.endpoint' is the collector's base URL"),
            ("observability: { trace: { share: 150% } }\n",
             "otel.yaml:5:34: error: 'observability.trace.share' is a probability from 0 to 1"),
            ("observability: { otlp: { interval: 0s } }\n",
             "otel.yaml:5:36: error: 'observability.otlp.interval' must be longer than 0"),
            ("observability: { trace: { sip_header: \"X Trace\" } }\n",
             "otel.yaml:5:39: error: 'observability.trace.sip_header' needs a header name"),
            ("observability: { otlp: { headers: [a, b] } }\n",
             "otel.yaml:5:35: error: expected a mapping of header names to values"),
            ("observability: { traces: { share: 1 } }\n",
             "otel.yaml:5:18: error: unknown key 'traces' in 'observability'"),
        ]
        for (section, expected) in cases {
            guard case .failure(let errors) = load(section) else {
                XCTFail("expected an error for \(section)")
                continue
            }
            XCTAssertTrue(errors.description.contains(expected), "\(section) → \(errors.description)")
        }
    }

    func testTheMappingRenamesOrTurnsOffTheTraceHeader() throws {
        let api = """
            target:
              url: http://127.0.0.1:9000
              api:
                register: { method: POST, path: /devices }
                start: { method: POST, path: /calls }
                end: { method: POST, path: /calls/end }
                join: { method: POST, path: /calls/join }

            """
        XCTAssertEqual(try load(api).get().api?.traceHeader, "traceparent")
        XCTAssertEqual(try load(api + "    trace_header: X-Trace-Parent\n").get().api?.traceHeader, "X-Trace-Parent")
        XCTAssertNil(try load(api + "    trace_header: \"off\"\n").get().api?.traceHeader)
        guard case .failure(let errors) = load(api + "    trace_header: \"a:b\"\n") else { return XCTFail("a:b") }
        XCTAssertTrue(errors.description.contains("otel.yaml:12:19: error: 'target.api.trace_header' needs a header"),
                      errors.description)
    }
}
