import CLibnghttp2

/// Lays out a request's header block for `nghttp2_submit_request` in byte scratch kept per connection, so
/// submitting a request allocates nothing once the scratch has grown.
///
/// Fields in order: `:method`, `:scheme` (`https`), `:authority`, `:path`, then the request's fields as given.
/// The first three and `:path`'s name stay laid out while the method and the authority repeat (an APNs client's
/// always do); the path and each field's bytes (`H2Field.bytes`, made once when the field was) are copied in. Before,
/// every name and value was appended through its String's UTF-8 view: ~8,000 instructions and ~35 retains and
/// releases a push in the capacity flow's profile.
struct H2RequestFields {
    private var bytes: [UInt8] = []
    private var spans: [Span] = []
    private var vectors: [nghttp2_nv] = []
    /// The pseudo-fields laid out at the start of `bytes`: their spans, and the bytes they (and `:path`) take.
    private var heldSpans: [Span] = []
    private var heldBytes = 0
    private var heldMethod = ""
    private var heldAuthority = ""

    /// Where one field's name and value lie in `bytes`.
    private struct Span {
        var name: Int
        var nameCount: Int
        var value: Int
        var valueCount: Int
        var flags: UInt8
    }

    /// Calls `use` with the name/value vectors of `request`'s header block, valid only inside it.
    mutating func withVectors<R>(_ request: H2Request, authority: String,
                                 _ use: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if heldSpans.isEmpty || request.method != heldMethod || authority != heldAuthority {
            hold(request.method, authority)
        }
        bytes.removeSubrange(heldBytes...)
        spans.removeAll(keepingCapacity: true)
        spans.append(contentsOf: heldSpans)
        let none = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        bytes.append(contentsOf: request.path.utf8)
        spans.append(Span(name: heldBytes - 5, nameCount: 5, value: heldBytes, valueCount: bytes.count - heldBytes,
                          flags: none))
        append(request.fields)
        append(request.moreFields)
        vectors.removeAll(keepingCapacity: true)
        return bytes.withUnsafeMutableBufferPointer { all in
            let base = all.baseAddress!
            for span in spans {
                vectors.append(nghttp2_nv(name: base + span.name, value: base + span.value, namelen: span.nameCount,
                                          valuelen: span.valueCount, flags: span.flags))
            }
            return vectors.withUnsafeBufferPointer { use($0.baseAddress!, $0.count) }
        }
    }

    private mutating func append(_ fields: [H2Field]) {
        // By index: a copied element would retain and release its bytes.
        for i in fields.indices {
            let start = bytes.count
            let nameCount = fields[i].nameCount
            bytes.append(contentsOf: fields[i].bytes)
            spans.append(Span(name: start, nameCount: nameCount, value: start + nameCount,
                              valueCount: bytes.count - start - nameCount,
                              flags: UInt8(fields[i].unindexed ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue
                                                               : NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
    }

    /// Lays out `:method`, `:scheme`, `:authority` (names and values) and the name `:path` at the start of `bytes`.
    private mutating func hold(_ method: String, _ authority: String) {
        heldMethod = method
        heldAuthority = authority
        bytes.removeAll(keepingCapacity: true)
        heldSpans.removeAll()
        for (name, value) in [(":method", method), (":scheme", "https"), (":authority", authority)] {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            heldSpans.append(Span(name: start, nameCount: valueStart - start, value: valueStart,
                                  valueCount: bytes.count - valueStart, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        bytes.append(contentsOf: ":path".utf8)
        heldBytes = bytes.count
    }
}
