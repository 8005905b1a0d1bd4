"""Tools around the engine: plotting, the resolved-schedule report, safe schedule expressions, YAML/dict
serialization, atomic file writes and the ``python -m schedulers`` command line.
"""
