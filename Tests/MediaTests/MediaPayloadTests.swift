import Media
import XCTest

final class MediaPayloadTests: XCTestCase {
    func testG711EncodesTheReferencePoints() {
        // Zero is the silence byte of each law; full scale is the law's extreme codes (G.711 Tables 1a/2a).
        XCTAssertEqual(MediaCodec.pcmu.encode(0), 0xFF)
        XCTAssertEqual(MediaCodec.pcma.encode(0), 0xD5)
        XCTAssertEqual(MediaCodec.pcmu.encode(32_767), 0x80)
        XCTAssertEqual(MediaCodec.pcmu.encode(-32_768), 0x00)
        XCTAssertEqual(MediaCodec.pcma.encode(32_767), 0xAA)
        XCTAssertEqual(MediaCodec.pcma.encode(-32_768), 0x2A)
        XCTAssertEqual(MediaCodec.pcmu.silence, 0xFF)
        XCTAssertEqual(MediaCodec.pcma.silence, 0xD5)
    }

    func testAPayloadIs160BytesAndItsSignatureReadsBack() {
        for codec in MediaCodec.allCases {
            for pattern in [MediaPayload.Pattern.tone, .silence] {
                var out: [UInt8] = []
                MediaPayload.append(codec: codec, pattern: pattern, ssrc: 0xA1B2_C3D4, sequence: 513,
                                    sentNanos: 0x0102_0304_0506_0708, into: &out)
                XCTAssertEqual(out.count, 160)
                let signature = out.withUnsafeBytes { MediaPayload.signature($0) }
                XCTAssertEqual(signature, MediaPayload.Signature(ssrc: 0xA1B2_C3D4, sequence: 513,
                                                                 sentNanos: 0x0102_0304_0506_0708))
                if pattern == .silence { XCTAssertEqual(out.last, codec.silence) }
            }
        }
    }

    func testATamperedOrForeignPayloadHasNoSignature() {
        var out: [UInt8] = []
        MediaPayload.append(codec: .pcmu, pattern: .tone, ssrc: 1, sequence: 2, sentNanos: 3, into: &out)
        out[5] ^= 1
        XCTAssertNil(out.withUnsafeBytes { MediaPayload.signature($0) })
        XCTAssertNil([UInt8](repeating: 0xFF, count: 160).withUnsafeBytes { MediaPayload.signature($0) })
    }

    func testTheToneIsNotSilence() {
        var out: [UInt8] = []
        MediaPayload.append(codec: .pcma, pattern: .tone, ssrc: 1, sequence: 2, sentNanos: 3, into: &out)
        XCTAssertGreaterThan(Set(out[MediaPayload.signatureSize...]).count, 8)
    }

    func testCodecFromPayloadType() {
        XCTAssertEqual(MediaCodec(payloadType: 0), .pcmu)
        XCTAssertEqual(MediaCodec(payloadType: 8), .pcma)
        XCTAssertNil(MediaCodec(payloadType: 18))
        XCTAssertNil(MediaCodec(payloadType: 256))
    }
}
