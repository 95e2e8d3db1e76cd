import Credentials
import Foundation
import HTTPServer
@testable import PushGateway
import XCTest

/// Certificate-based provider auth decided from a client certificate's contents, and the `iat` forms and
/// authorization spellings APNs accepts, without sockets.
final class CertificateAuthTests: XCTestCase {
    private let token = String(repeating: "ab", count: 32)
    private let bundle = "com.example.phone"

    private func certificate(topics: [String]? = nil, uid: String? = "com.example.phone",
                             development: Bool = true, production: Bool = true) -> ClientCertificate {
        var extensions: [String: [UInt8]] = [:]
        if let topics {
            extensions[PushClientCertificate.topicsOID] = PushClientCertificate.topicsDER(topics.map { ($0, "app") })
        }
        if development { extensions[PushClientCertificate.developmentOID] = [0x05, 0x00] }
        if production { extensions[PushClientCertificate.productionOID] = [0x05, 0x00] }
        return ClientCertificate(subjectUID: uid, commonName: uid.map { "VoIP Services: " + $0 },
                                 extensions: extensions)
    }

    private func push(_ certificate: ClientCertificate?, topic: String? = "com.example.phone.voip",
                      host: String = "api.push.apple.com", authorization: String? = nil) -> String {
        var headers = [HTTPHeader(name: "apns-push-type", value: "voip"), HTTPHeader(name: "host", value: host)]
        if let topic { headers.append(HTTPHeader(name: "apns-topic", value: topic)) }
        if let authorization { headers.append(HTTPHeader(name: "authorization", value: authorization)) }
        var request = HTTPRequest(method: "POST", path: "/3/device/" + token, headers: headers,
                                  body: Array(#"{"uuid":"u"}"#.utf8), connectionID: 7)
        request.clientCertificate = certificate
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: bundle)), sink: CollectingSink())
        let response = gateway.answer(request)
        return response.status == 200 ? "200" : String(decoding: response.body, as: UTF8.self)
    }

    func testACertificateReplacesTheTokenAndLimitsTopicsToThoseItNames() {
        let voip = certificate(topics: [bundle, bundle + ".voip"])
        XCTAssertEqual(push(voip), "200")
        XCTAssertEqual(push(voip, topic: "com.other.voip"), #"{"reason":"TopicDisallowed"}"#)
        XCTAssertEqual(push(voip, topic: nil), #"{"reason":"MissingTopic"}"#, "two topics: the header is required")
        XCTAssertEqual(push(nil), #"{"reason":"MissingProviderToken"}"#, "neither a certificate nor a token")
        XCTAssertEqual(push(certificate(topics: nil)), "200", "an old certificate: UID and its VoIP topic")
    }

    func testACertificateWithoutTopicsIsBadAndTheWrongEnvironmentIsRefused() {
        XCTAssertEqual(push(certificate(topics: nil, uid: nil)), #"{"reason":"BadCertificate"}"#)
        let production = certificate(topics: [bundle + ".voip"], development: false)
        XCTAssertEqual(push(production, host: "api.sandbox.push.apple.com"), #"{"reason":"BadCertificateEnvironment"}"#)
        XCTAssertEqual(push(production, host: "api.push.apple.com:443"), "200")
        let development = certificate(topics: [bundle + ".voip"], production: false)
        XCTAssertEqual(push(development, host: "api.push.apple.com"), #"{"reason":"BadCertificateEnvironment"}"#)
        XCTAssertEqual(push(development, host: "127.0.0.1:2197"), "200", "a host that names no environment")
        XCTAssertEqual(push(development, topic: nil, host: "api.development.push.apple.com"), "200",
                       "one topic: it is the default")
    }

    private func jwt(_ claims: String, header: String = #"{"alg":"ES256","kid":"ABCDEFGHIJ"}"#) -> String {
        "bearer " + Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    func testIatIsAcceptedAsAnIntegerAFloatOrADecimalStringAndEachFormIsReported() {
        let now = Int64(Date().timeIntervalSince1970)
        let forms: [(String, IssuedAtForm?)] = [
            ("\(now)", .integer), ("\(now).25", .float), ("\"\(now)\"", .string), ("\"\(now).5\"", .string),
            ("true", nil), ("\"soon\"", nil), ("\"\"", nil), ("null", nil), ("\"1e9\"", nil),
        ]
        for (iat, expected) in forms {
            let result = ProviderToken.verify(jwt(#"{"iss":"TEAM123456","iat":"# + iat + "}"), nowEpochSeconds: now)
            switch result {
            case .success(let verified):
                XCTAssertEqual(verified.issuedAtForm, expected, iat)
                XCTAssertEqual(verified.issuedAt, now, iat)
            case .failure(let rejection):
                XCTAssertNil(expected, "\(iat): \(rejection)")
            }
        }
    }

    func testTheBearerSchemeIsCaseInsensitive() {
        let now = Int64(Date().timeIntervalSince1970)
        let token = jwt(#"{"iss":"TEAM123456","iat":\#(now)}"#).dropFirst("bearer ".count)
        for scheme in ["bearer ", "Bearer ", "BEARER "] {
            XCTAssertNil(ProviderToken.check(scheme + token, nowEpochSeconds: now), scheme)
        }
        XCTAssertNotNil(ProviderToken.check("Basic " + token, nowEpochSeconds: now))
    }

    func testNonIntegerIatFormsAreCountedOncePerTokenAndConnection() {
        let now = Int64(Date().timeIntervalSince1970)
        let gateway = APNsGateway(configuration: .init(validator: .init(bundleID: bundle)), sink: CollectingSink())
        for (connection, iat) in [(1, "\"\(now)\""), (1, "\"\(now)\""), (2, "\(now).5")] {
            var request = HTTPRequest(method: "POST", path: "/3/device/" + token, headers: [
                HTTPHeader(name: "authorization", value: jwt(#"{"iss":"TEAM123456","iat":"# + iat + "}")),
                HTTPHeader(name: "apns-push-type", value: "voip"),
                HTTPHeader(name: "apns-topic", value: bundle + ".voip"),
            ], body: Array("{}".utf8), connectionID: UInt64(connection))
            request.receivedNanos = 1
            XCTAssertEqual(gateway.answer(request).status, 200)
        }
        let counters = Dictionary(gateway.connectionCounters.map { ($0.name, $0.value) }, uniquingKeysWith: +)
        XCTAssertEqual(counters["gateway.jwt.iat_string"], 1)
        XCTAssertEqual(counters["gateway.jwt.iat_float"], 1)
        XCTAssertEqual(counters["gateway.connections.token"], 2)
    }
}
