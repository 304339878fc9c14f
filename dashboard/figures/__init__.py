"""Figures: pure functions, model answers in, figure dicts or Patches out."""
