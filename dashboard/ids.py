"""Dash component IDs, in one place."""

URL = "url"
MESSAGES = "messages"
CARDS = "cards"
COUNTS = "counts"
EVENTS = "events"
SCENARIO = "scenario-text"
VERSUS = "versus"
