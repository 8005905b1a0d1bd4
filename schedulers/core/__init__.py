"""The engine: what a schedule reads (state), time resolution, kernels, the schedule base class, composition,
compilation to torch, whole-run evaluation, the clock and the registry of names.

Users import the public names from :mod:`schedulers`; these modules are for readers of the engine.
"""
