import CZlib
import Determinism
import XCTest
@testable import Reports

/// `HdrDeflater` writes zlib streams by hand: every one must inflate, through zlib itself, to exactly its input,
/// and stay within the room `compressBound` promises (the caller sizes its scratch by it).
final class HdrDeflaterTests: XCTestCase {
    func testEveryStreamInflatesThroughZlibToItsInput() throws {
        var rng = SeededRandom(splitMix: 33)
        let deflater = HdrDeflater()
        var inputs: [[UInt8]] = [[], [0], [255], Array(repeating: 0x80, count: 512),
                                 Array(repeating: 0xF0, count: 512)]  // the last one only fits stored
        for _ in 0..<300 {
            let count = Int(rng.next() % 513)
            let ceiling = rng.next() % 2 == 0 ? 144 : 256  // only 8-bit codes, or both widths
            inputs.append((0..<count).map { _ in UInt8(rng.next() % UInt64(ceiling)) })
        }
        for input in inputs {
            let stream = try deflate(input, with: deflater)
            XCTAssertLessThanOrEqual(stream.count, Int(compressBound(uLong(input.count))), "\(input.count) bytes")
            XCTAssertEqual(try inflate(stream, expected: input.count), input, "\(input.count) bytes")
        }
    }

    func testAByteAbove143CostsNineBitsAndStoredWinsWhenEveryByteDoes() throws {
        let deflater = HdrDeflater()
        // 2 + ceil((3 + 8 * 100 + 7) / 8) + 4 = 108 bytes: fixed codes, under stored's 111.
        XCTAssertEqual(try deflate(Array(repeating: 7, count: 100), with: deflater).count, 108)
        // Every byte 9 bits: fixed would be 2 + ceil(910 / 8) + 4 = 120, so the block is stored (100 + 11).
        XCTAssertEqual(try deflate(Array(repeating: 200, count: 100), with: deflater).count, 111)
    }

    func testATargetSmallerThanTheStreamIsRefused() {
        let input: [UInt8] = Array(repeating: 1, count: 40)
        var length: uLong = 0
        let status = input.withUnsafeBufferPointer { source in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { target in
                HdrDeflater().deflate(source, into: target, length: &length)
            }
        }
        XCTAssertEqual(status, Z_BUF_ERROR)
    }

    private func deflate(_ input: [UInt8], with deflater: HdrDeflater) throws -> [UInt8] {
        let bound = Int(compressBound(uLong(input.count)))
        var out = [UInt8](repeating: 0, count: bound)
        var length: uLong = 0
        let status = input.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { deflater.deflate(source, into: $0, length: &length) }
        }
        XCTAssertEqual(status, Z_OK)
        return Array(out[0..<Int(length)])
    }

    private func inflate(_ stream: [UInt8], expected: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: expected + 16)
        var produced = uLong(out.count)
        let status = stream.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer {
                uncompress($0.baseAddress, &produced, source.baseAddress, uLong(stream.count))
            }
        }
        XCTAssertEqual(status, Z_OK)
        return Array(out[0..<Int(produced)])
    }
}
