# Sourced by the scripts that count instructions per call under callgrind (bench-sip-instructions.sh,
# bench-sip-wake-instructions.sh, bench-capacity-instructions.sh, bench-locust-instructions.sh): each runs the same
# flow twice, N1 and N2 calls, and divides the difference of the instruction totals by the difference of the calls
# completed, so start-up, registration and the report cancel out.

# collected FILE: the instruction total valgrind's callgrind wrote to its stderr FILE.
collected() { grep -o "Collected : [0-9]*" "$1" | awk '{print $3}'; }

# completed SUMMARY: calls.completed of a run's summary.json (0 when it is missing).
completed() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counters'].get('calls.completed', 0))" "$1" \
        2>/dev/null || echo 0
}

# per_call TOTAL1 TOTAL2 CALLS1 CALLS2: instructions per call, the differences' quotient (0 when CALLS2 ≤ CALLS1).
per_call() {
    python3 -c "import sys; a, b, x, y = map(int, sys.argv[1:]); print((b - a) // (y - x) if y > x else 0)" "$@"
}
