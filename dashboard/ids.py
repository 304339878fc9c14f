"""Dash component IDs, in one place: every panel's layout and callbacks name them from here,
so a typo is an AttributeError at import, not a callback that silently never fires.

Grouped by the panel (dashboard/panels/<panel>.py) whose layout holds the component.
"""

# the page (dashboard/layout.py) and the scenario's owner (panels/scenario.py)
PAGE = "page"  # the page's root: presentation mode is a class on it (assets/present.js)
PRESENT = "present-btn"  # presentation mode on and off (Esc leaves it)
URL = "url"
MESSAGES = "messages"
ACTION = "action-message"
VIEW_MESSAGE = "view-message"
READY = "ready"  # the search string, once the cards for it are out
# READY again, for what is below the first screen: set once that part has come near the
# viewport (BELOW_SEEN, assets/later.js), so a first page draws only the rack and the cards
LATER = "ready-later"
BELOW_SEEN = "below-seen"
# The page below the first screen is not in the first page's layout: its sections are
# mounted into these (panels/lazy.py) once the first screen is drawn and the browser is idle,
# or once it is seen, whichever is first (MOUNT, set by assets/later.js)
MOUNT = "below-mount"
LAZY_CHARTS = "lazy-charts"  # the decode, goodput, timeline and latency charts
LAZY_PANELS = "lazy-panels"  # what each feature buys, the fleet study, export, the tables
LAZY_CLOCK = "lazy-clock"  # the clock's reading beside the counter picker
LAZY_HEATMAP = "lazy-heatmap"  # the counter heatmap
LAZY_SERIES = "lazy-series"  # one link's series, its forecast and notes
LAZY_IMPORT = "lazy-import"  # the box that reads a rack's own telemetry
FABRIC = "fabric"
WORKLOAD = "workload"
FEATURES = "features"
FEATURES_BOX = "features-box"  # the features' box: its title says why they are disabled
WORKLOAD_BOX = "workload-box"
AT = "at"  # the interactivity the deployment runs at (at=), tokens/s per user
AT_WORDS = "at-words"  # that interactivity in words
ETH_PORTS = "eth-ports"  # the Ethernet a GPU (eth_bw=): on eth-x72, and vr-nvl72's baseline
ETH_PORTS_BOX = "eth-ports-box"
ISSU_BOX = "issu-box"
FEATURES_TITLE = "features-title"  # the fabric's own name for its resiliency features
ISSU = "issu"
PRESET = "preset"
CLICK_MODE = "click-mode"
ID_INPUT = "id-input"  # the find box: Enter highlights the part, the button applies the click
FIND_OPTIONS = "find-options"  # its suggestions (a datalist), as a person types
FAIL_BTN = "fail-button"
REPAIR_ALL = "repair-all"
CARDS_SHOWN = "cards-shown"  # the cards' values shown and before (common.mark_was)
COPY_LINK = "copy-link"  # copies the page's URL (query and #fragment) to the clipboard

# panels/faults.py: the faults as removable chips, undo and redo
FAULT_CHIPS = "fault-chips"
CHIP_PICK = "chip-pick"  # the chip whose x was pressed (assets/faults.js)
UNDO = "undo-btn"
REDO = "redo-btn"
HISTORY = "scenario-history"  # this tab's scenarios, for undo and redo

# panels/cards.py: headline cards, what happened, the readers' questions, counts
CARDS = "cards"
COUNTS = "counts"
EVENTS = "events"
FEATURE_NOTES = "feature-notes"  # what each feature switch means on the fabric shown
SCENARIO = "scenario-text"
QUESTIONS = "questions"
SUMMARY = "summary-html"  # the four above as data the browser writes (assets/summary.js)
SUMMARY_DRAWN = "summary-drawn"  # the search whose summary is written in the page

# panels/rack.py: the rack and its spine, the L2 tier of a domain, the hovered part
RACK = "rack"
RACK_FABRIC = "rack-fabric"
RACK_VIEW = "rack-view"  # what the rack on show was drawn for: a redraw only if it changes
RACK_SELECT = "rack-select"
RACK_SELECT_BOX = "rack-select-box"
# the rack's and the map's figures: whole once a fabric, then a Patch of what a change changed
CABLE_MAP = "cable-map"  # every cable a cell, beside the drawing (figures/rack/cablemap.py)
RACK_KEYS = "rack-keys"  # the drawing, focusable: the arrow keys walk its parts
MAP_KEYS = "map-keys"  # the cable map, focusable: the arrow keys walk its cells
RACK_PRESS = "rack-press"  # the last press on the rack or map: {id, mode, before} (rack_press.js)
L2 = "l2-chart"
HOVER = "hover-details"

# panels/costs.py: decode, goodput, latency, the newest fault's timeline
DECODE = "decode-chart"
VERSUS = "versus"
BREAKDOWN = "decode-breakdown-chart"
# panels/calibration.py: every published point against the model
CALIBRATION = "calibration"
CALIBRATION_BODY = "calibration-body"
CALIBRATION_SUMMARY = "calibration-summary"
GOODPUT = "goodput-chart"
LATENCY = "latency-chart"
TIMELINE = "timeline-chart"

# panels/telemetry.py and panels/clock.py: counters, one link, the simulated clock
HEATMAP = "heatmap-chart"
SERIES = "series-chart"
COUNTER = "counter"
LINK_INPUT = "link-input"
TICK = "tick"
CLOCK = "clock"
CLOCK_TEXT = "clock-text"
PAUSE = "pause"

# panels/compare.py, panels/export.py, panels/assumptions.py
COMPARE_INPUT = "compare-input"
COMPARE = "compare-table"
EXPORT_JSON = "export-json"
EXPORT_CSV = "export-csv"
PRINT = "print-report"  # the browser's print of the page, as a report (assets/present.js)
REPORT_HTML = "download-report"  # the report as one HTML file (panels/export.py report)
REPORT_IMAGES = "report-images"  # the page's drawings as SVG, for the report (assets/present.js)
REPORT_DOWNLOAD = "report-download"
DOWNLOAD = "download"
ASSUMPTIONS = "assumptions"
ASSUMPTIONS_BODY = "assumptions-body"
SENSITIVITY = "assumptions-sensitivity"  # what moves goodput: each [A] across its span

# panels/buys.py: what each feature buys (the goodput panel's settings, table, best policy)
BUYS_RACKS = "buys-racks"
BUYS_SPARES = "buys-spares"
BUYS_REPAIR = "buys-repair"
BUYS_ONSITE = "buys-onsite"
BUYS_CKPT = "buys-checkpoint"
BUYS_PRICE = "buys-price"
BUYS_CSV = "buys-csv"
BUYS_TABLE = "buys-table"
BUYS_ALL = "buys-all"  # the side-by-side's every column, on demand
BUYS_POLICY = "buys-policy"
BUYS_TRADE = "buys-trade"  # the optimiser's trade: goodput against rack-down visits
BUYS_DOWNLOAD = "buys-download"

# panels/fleet.py: the fleet study and its watchdog (see fleet.py's docstring)
FLEET_RUN = "fleet-run"
FLEET_CANCEL = "fleet-cancel"
FLEET_RACKS = "fleet-racks"
FLEET_YEARS = "fleet-years"
FLEET_PROGRESS = "fleet-progress"
FLEET_PROGRESS_TEXT = "fleet-progress-text"
FLEET_RESULT = "fleet-result"
FLEET_BEAT = "fleet-beat"  # progress: "<token>:<count>", new every BEAT_S while the job lives
FLEET_LIVE = "fleet-live"  # running: True while Dash polls the job, False once its loop ends
FLEET_DONE = "fleet-done"  # output: the run (n_clicks) whose result arrived
FLEET_STOP = "fleet-stop"  # a cancel input: the watchdog writes it to cancel through Dash
FLEET_WATCH = "fleet-watch"  # the Interval: enabled only while a run is watched
FLEET_WATCH_STATE = "fleet-watch-state"
# The telemetry panel's import box and forecast (dashboard/panels/telemetry.py).
IMPORT_UPLOAD = "import-upload"
IMPORT_TEXT = "import-text"
IMPORT_BUTTON = "import-button"
IMPORT_RESULT = "import-result"
FORECAST = "forecast"
# live mode (panels/live.py): the banner, the tick that follows the rack (on only in live
# mode, at its interval), the live query the page last followed, and what to do
LIVE_BANNER = "live-banner"
LIVE_TICK = "live-tick"
LIVE_FOLLOWED = "live-followed"
LIVE_TODO = "live-todo"

# panels/history_page.py and history_answer.py: the /fleet page (issue 30), a Dash app of its
# own on the same server; its IDs are prefixed so no ID of the two pages is the other's
HIST_URL = "hist-url"
HIST_DATA = "hist-data"  # what the scrubber reads in the browser: the racks' state intervals
HIST_RACKS = "hist-racks"
HIST_DAYS = "hist-days"
HIST_SEED = "hist-seed"
HIST_SPARES = "hist-spares"
HIST_POLICY = "hist-policy"
HIST_AGAINST = "hist-against"  # the second feature set or fabric on the same failures
HIST_ERROR = "hist-error"
HIST_BACK = "hist-back"  # the link back to the rack with this scenario
HIST_SUMMARY = "hist-summary"
HIST_LINKS = "hist-links"  # the readers' question: how often one link stopped the job
HIST_GRID = "hist-grid"
HIST_LEGEND = "hist-legend"
HIST_T = "hist-t"  # the scrubber: a point of the history's lines (0 .. SERIES_POINTS - 1)
HIST_PLAY = "hist-play"
HIST_TICK = "hist-tick"  # the Interval that moves the scrubber while playing
HIST_NOW = "hist-now"  # the job so far at the time shown
HIST_EVENTS = "hist-events"
HIST_RACK = "hist-rack"  # the picked rack's events
HIST_LINES = "hist-lines"
HIST_DIFF = "hist-diff"
HIST_PARTINGS = "hist-partings"
HIST_OPEN = "hist-open"  # on the main page: the link to /fleet with its scenario
