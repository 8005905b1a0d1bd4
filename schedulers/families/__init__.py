"""Schedule families on the engine: Composer's 13 schedulers (:mod:`~schedulers.families.composer`) and
Cadence's extended schedules (:mod:`~schedulers.families.extended`). Import them from :mod:`schedulers`.
"""
