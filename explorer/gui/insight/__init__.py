"""What raw attention weights hide (issue 25), as views: the Inside attention tab (sinks, rollout
and flow, value-weighted attention, the logit lens), the heads grid's pieces ↔ words and
heatmap ↔ lines switches with a head drawn as lines, and sampling in the Generate tab.

`mount.install_insight(window)` puts them in the window (called by window/learned_wiring after
the first paint); their state and jobs are app.insight's, their maths core.insight's.
"""
