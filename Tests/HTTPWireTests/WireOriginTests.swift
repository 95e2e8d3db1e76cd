@testable import HTTPWire
import XCTest

/// `WireOrigin.parse` reads the URL over its bytes (issue 33): origins, request targets and refusals as the
/// Character-wise reading before it gave them.
final class WireOriginTests: XCTestCase {
    private func parsed(_ url: String) throws -> (WireOrigin, String) { try WireOrigin.parse(url) }

    private func refusal(_ url: String) -> String? {
        do {
            _ = try WireOrigin.parse(url)
            return nil
        } catch {
            guard case .badURL(let why) = error else { return "\(error)" }
            return why
        }
    }

    func testOriginsAndTargets() throws {
        XCTAssertTrue(try parsed("http://127.0.0.1:8080/v1/devices?x=1#top")
                      == (WireOrigin(secure: false, host: "127.0.0.1", port: 8080), "/v1/devices?x=1"))
        XCTAssertTrue(try parsed("https://calls.example?q") == (WireOrigin(secure: true, host: "calls.example",
                                                                             port: 443), "/?q"))
        XCTAssertTrue(try parsed("http://h") == (WireOrigin(secure: false, host: "h", port: 80), "/"))
        XCTAssertTrue(try parsed("http://[::1]:9/a") == (WireOrigin(secure: false, host: "::1", port: 9), "/a"))
        XCTAssertTrue(try parsed("https://[fe80::2]/") == (WireOrigin(secure: true, host: "fe80::2", port: 443), "/"))
        XCTAssertTrue(try parsed("http://h:+80/") == (WireOrigin(secure: false, host: "h", port: 80), "/"))
        XCTAssertTrue(try parsed("http://h:00080/") == (WireOrigin(secure: false, host: "h", port: 80), "/"))
        XCTAssertEqual(try parsed("http://[::1]:8080/").0.hostHeader, "[::1]:8080")
    }

    func testRefusalsNameTheURL() {
        XCTAssertEqual(refusal("ftp://h/"), "ftp://h/ is not an http:// or https:// URL")
        XCTAssertEqual(refusal("http://u@h/"), "http://u@h/ has user information, which is not supported")
        XCTAssertEqual(refusal("http://[::1/"), "http://[::1/: unclosed IPv6 bracket")
        XCTAssertEqual(refusal("http://[::1]x/"), "http://[::1]x/: bytes after the IPv6 address")
        XCTAssertEqual(refusal("http:///a"), "http:///a has no host")
        XCTAssertEqual(refusal("http://:80/"), "http://:80/ has no host")
        XCTAssertEqual(refusal("http://h:0/"), "http://h:0/: port \"0\" is not 1…65535")
        XCTAssertEqual(refusal("http://h:65536/"), "http://h:65536/: port \"65536\" is not 1…65535")
        XCTAssertEqual(refusal("http://h:x/"), "http://h:x/: port \"x\" is not 1…65535")
        XCTAssertEqual(refusal("http://h:/"), "http://h:/: port \"\" is not 1…65535")
        XCTAssertEqual(refusal("http://h:99999999999999999999999/"),
                       "http://h:99999999999999999999999/: port \"99999999999999999999999\" is not 1…65535")
    }
}
