"""Schedules written in training time: closed-form kernels, Composer's schedulers, composition, torch glue."""
