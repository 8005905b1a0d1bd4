"""Tools around the engine: plotting, the resolved-schedule report, safe schedule expressions, atomic file
writes and the ``python -m schedulers`` command line (a schedule as a YAML/dict config is the engine's own:
:mod:`schedulers.core.schedule_config`).
"""
