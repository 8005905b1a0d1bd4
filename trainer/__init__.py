"""The training loop that owns time (counts sp/tok/ba/ep, steps schedules, checkpoints)."""
