"""The engine, one module per concept: the run and how its times resolve (``run``), the one clock (``clock``), the
kernels, schedules (``schedule``), composition, the plateau, listening, the one torch-side scheduler
(``torch_scheduler``), whole-run evaluation (``evaluate``), config round-trips (``schedule_config``), names and
the argument checks (``schedule_arguments``).

Users import the public names from :mod:`schedulers`; these modules are for readers of the engine.
"""
