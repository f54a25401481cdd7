"""What a device recording says about the kernel it timed, for the scripts that run the model
against it. Stdlib only."""
import json


def trace_words_args(recorded):
    """tmasim run arguments that make a traced model prediction keep its clock words where the
    recorded kernel kept them (the header's extra.trace_words_in; model/core/trace_words_at.h)."""
    with open(recorded) as fh:
        extra = json.loads(fh.readline()).get("extra", {})
    return ["--trace-words-in", extra.get("trace_words_in", "auto")]
