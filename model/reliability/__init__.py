"""Reliability: failure rates, lifetime goodput and the story of one fault."""
