import RTPEngine

/// Bytes as rtpengine's ng answers: an ng datagram, and the whole input as one bencoded value, lenient and
/// strict. Whatever decodes must encode to bytes that decode to the same value (the strict reader accepts
/// them: the encoder sorts keys); a dictionary goes through the typed `query` reader.
func fuzzBencode(_ bytes: [UInt8]) {
    if let message = try? NGMessage.decode(bytes) {
        precondition((try? NGMessage.decode(message.encoded)) == message, "an ng message does not round-trip")
        _ = try? RTPEngineCall(callID: message.cookie, answer: message.body)
    }
    for decoder in [BencodeDecoder(), BencodeDecoder(maxDepth: 8, requiresSortedKeys: true)] {
        do {
            let value = try decoder.decode(bytes)
            let again = try BencodeDecoder(maxDepth: 64, requiresSortedKeys: true).decode(value.encoded)
            precondition(again == value, "bencode does not round-trip")
        } catch let error as BencodeError {
            precondition(error.offset >= 0 && error.offset <= bytes.count, "an error offset outside the input")
            _ = error.description
        } catch {
            preconditionFailure("an error that is not a BencodeError: \(error)")
        }
    }
}
