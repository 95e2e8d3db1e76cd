import Foundation
import HTTPServer
import Transport
import XCTest

/// The probe's wiring: it reads the `Date` header of real answers (the arithmetic that narrows the offset is
/// `ClockOffsetEstimate`'s, tested in DeterminismTests without a server).
final class DateHeaderProbeTests: XCTestCase {
    func testTheProbeReadsTheDateHeaderOfAServerFiveSecondsAheadIntoTheEstimate() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let format = FormatterBox(formatter)
        var config = HTTPServerConfiguration()
        config.host = "127.0.0.1"
        config.port = 0
        let server = HTTPServer(configuration: config, handler: HTTPClosureHandler { _, respond in
            let date = format.value.string(from: Date().addingTimeInterval(5))
            respond(.text(200, "ok", headers: [HTTPHeader(name: "date", value: date)]))
        })
        try server.start()
        defer { server.stop() }
        let estimate = try XCTUnwrap(DateHeaderProbe.measure(baseURL: "http://127.0.0.1:\(server.port)", samples: 3,
                                                             spacingMillis: 1))
        XCTAssertEqual(estimate.samples, 3)
        // Three answers a millisecond apart leave up to a one-second window around the five seconds.
        XCTAssertEqual(try XCTUnwrap(estimate.offsetSeconds), 5, accuracy: 1.0)
    }

    func testNoAnswerIsNoEstimate() {
        XCTAssertNil(DateHeaderProbe.measure(baseURL: "http://127.0.0.1:1", samples: 2, spacingMillis: 1))
    }
}

/// DateFormatter is not Sendable; the test server's one thread is its only user.
private final class FormatterBox: @unchecked Sendable {
    let value: DateFormatter
    init(_ value: DateFormatter) { self.value = value }
}
