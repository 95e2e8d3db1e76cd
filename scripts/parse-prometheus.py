#!/usr/bin/env python3
"""Reads Prometheus text exposition on stdin, parses it with prometheus-client's text parser (which raises on
malformed input) and prints every sample as JSON: [{"name", "labels", "value", "type"}]."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
out = []
for family in text_string_to_metric_families(text):
    for s in family.samples:
        v = s.value
        out.append({"name": s.name, "labels": s.labels, "type": family.type,
                    "value": None if (isinstance(v, float) and math.isnan(v)) else v})
json.dump(out, sys.stdout)
