"""The load rule of `make bench`, for bench-results.py: a figure is judged only if the machine was quiet, the load
average below 1 before its section began and during it, the suite's own processes aside.

bench.sh leaves, in its work directory: `suite-starts` (epoch ms and the 1-minute load average when a suite began,
one line per suite: a section rerun with BENCH_KEEP_WORK appends), `load-samples` (bench-load-sampler.py --tree:
every 0.5 s the machine's runnable tasks and how many were the suite's own) and `span-<section>` (the section's
first and last epoch ms). A later section's raw load average includes the suite's own earlier sections (both cores
busy), so "before" is the other work's load average: the kernel's 1-minute average replayed over the samples with
the suite's tasks taken out, from the load average at the suite's start. "During" is the mean of the other work's
runnable tasks over the section's samples. Both must be below 1."""
import math
import os
import statistics

DECAY = math.exp(-0.5 / 60)  # the kernel's 1-minute average, per 0.5 s sample

# The section each figure comes from, by id prefix (longest first); sockets rows judge themselves per phase.
SECTIONS = [("gateway_instructions", "gateway-instructions"), ("gateway_", "gateway"), ("raw_http_", "raw-http"),
            ("devices_", "devices"), ("hdr_", "metrics"), ("recorder_", "metrics"), ("hour_", "metrics"),
            ("checker", "checker"), ("timer_accuracy", "scale"), ("races", "races"), ("capacity", "capacity"),
            ("vs_", "locust"), ("ws_", "sockets"),
            ("sip_instructions", "sip-instructions"), ("sip_tls_", "sip-tls"), ("sip_storm", "sip-storm"), ("sip_ws_", "sip-ws"), ("sip_", "sip"),
            ("otlp_", "otlp"), ("media_", "media")]
SELF_JUDGED = {"sockets"}


def section_of(fid):
    return next((section for prefix, section in SECTIONS if fid.startswith(prefix)), None)


def _numbers(path, fields=None):
    """The lines of a file of numbers (their first `fields`); [] when missing or malformed."""
    try:
        return [[float(x) for x in line.split()[:fields]] for line in open(path) if line.strip()]
    except (OSError, ValueError):
        return []


class LoadRule:
    """Judges sections of one work directory; `judge(section)` is (judged, text)."""

    def __init__(self, work):
        self.work = work
        self.starts = _numbers(os.path.join(work, "suite-starts"))
        self.samples = [s for s in _numbers(os.path.join(work, "load-samples")) if len(s) == 4]
        self.verdicts = {}

    def judge(self, section):
        if section not in self.verdicts:
            self.verdicts[section] = self._judge(section)
        return self.verdicts[section]

    def _judge(self, section):
        span = [x[0] for x in _numbers(os.path.join(self.work, f"span-{section}"))]
        raw = _numbers(os.path.join(self.work, f"loadavg-{section}"), fields=1)
        raw_text = f"load average {raw[0][0]:g}" if raw else "load average not noted"
        before = self.other_before(section)
        if len(span) < 2 or before is None:
            return False, f"{section}: load not recorded ({raw_text})"
        begin, end = span[0], span[-1]
        during = [max(0.0, running - ours) for ms, _, running, ours in self.samples if begin <= ms < end]
        if not during:
            return False, f"{section}: load during it not recorded ({raw_text})"
        mean = statistics.mean(during)
        text = (f"{section}: other work's load average {before:.2f} at its start ({raw_text} with the suite's "
                f"own); other work's runnable tasks during it mean {mean:.2f}, max {max(during):g} over "
                f"{len(during)} samples")
        return before < 1 and mean < 1, text

    def other_before(self, section):
        """Other work's replayed load average at the section's start (the suite's own tasks taken out), or None
        when the samples do not cover it: for sections that judge their phases themselves."""
        span = [x[0] for x in _numbers(os.path.join(self.work, f"span-{section}"))]
        starts = [s for s in self.starts if span and s[0] <= span[0]]
        if not span or not starts:
            return None
        suite_ms, before = starts[-1]
        for ms, _, running, ours in self.samples:
            if suite_ms <= ms < span[0]:
                before = before * DECAY + max(0.0, running - ours) * (1 - DECAY)
        return before

    def apply(self, fid, goal, meets):
        """(goal, meets, load text) for figure `fid`: the goal marked "not judged" unless its section was quiet."""
        section = section_of(fid)
        if section is None or section in SELF_JUDGED:
            return goal, meets, None
        judged, text = self.judge(section)
        if goal and not judged:
            return f"{goal} (not judged: {text})", None, text
        return goal, meets, text
