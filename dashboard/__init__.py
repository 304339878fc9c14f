"""The view: layout, callbacks and the JSON API. Thin: parse, call the model, render."""
