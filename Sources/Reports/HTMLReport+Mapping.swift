import TextEscaping

/// What helps a user map their own server: the first-contact diagnoses the banner leads with, and the trace.
extension HTMLReport {
    /// First-contact diagnoses (a run against a new server that went nowhere), each with its fix.
    func diagnoses() -> String {
        var html = ""
        for note in result.notes where note.hasPrefix(RunResult.diagnosisPrefix) {
            let text = String(note.dropFirst(RunResult.diagnosisPrefix.count))
            html += "<p class=\"diagnosis\">\(text.markupEscaped)</p>\n"
        }
        return html
    }

    /// `run --trace N`: what the mapping sent and the server answered, line by line (at most 2,000 lines here;
    /// trace.jsonl has them all).
    func traceSection() -> String {
        guard let trace = result.trace, !trace.isEmpty else { return "" }
        var html = "<section id=\"trace\">\n<h2>Trace</h2>\n<p>Requests, responses and pushes of the first traced "
        html += "calls (trace.jsonl, \(trace.count) lines).</p>\n<pre class=\"trace\">"
        html += trace.prefix(2000).map(\.markupEscaped).joined(separator: "\n")
        return html + "</pre>\n</section>\n"
    }
}
