extension String {
    /// Text safe in HTML and XML 1.0, in element content and in quoted attributes alike: the one escaper of the
    /// HTML report, its SVG charts, the checker's timelines and the JUnit file.
    ///
    /// `& < > " '` become entities (`&#39;`, which HTML 4 knows and `&apos;` it does not); LF, CR and tab become
    /// character references, so an XML parser's attribute normalisation cannot turn them into spaces (an HTML
    /// parser reads them back as the same characters); other control characters and U+FFFE/U+FFFF, which XML
    /// forbids even as references, are dropped.
    public var markupEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
