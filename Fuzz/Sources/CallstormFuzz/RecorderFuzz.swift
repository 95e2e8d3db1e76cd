import Foundation
import Metrics
@testable import Results

/// A run directory's recorder files as `callstorm report DIR` reads them (a user may hand it any directory): the
/// bytes as a snapshot (`{"segments":N,"recorder":…}`), a segment line and a bare recorder, each through the
/// hand-written reader and through JSONDecoder. The hand reader may refuse what JSONDecoder reads (it leaves every
/// other shape to it), but what it reads must be what JSONDecoder reads: a difference is a crash.
func fuzzRecorder(_ bytes: [UInt8]) {
    let data = Data(bytes)
    let decoder = JSONDecoder()
    if let fast = bytes.withUnsafeBytes({ SnapshotFile.readWritten($0) }),
       let slow = try? decoder.decode(SnapshotFile.self, from: data) {
        precondition(fast.segments == slow.segments && fast.recorder == slow.recorder,
                     "the snapshot reader and JSONDecoder read different recorders")
    }
    if let fast = bytes.withUnsafeBytes({ SegmentLine.readWritten($0) }),
       let slow = try? decoder.decode(SegmentLine.self, from: data) {
        precondition(fast.segment == slow.segment && fast.recorder == slow.recorder,
                     "the segment reader and JSONDecoder read different recorders")
    }
    if let fast = bytes.withUnsafeBufferPointer({ Recorder.readWritten($0) }),
       let slow = try? decoder.decode(Recorder.self, from: data) {
        precondition(fast == slow, "Recorder.readWritten and JSONDecoder read different recorders")
    }
}
