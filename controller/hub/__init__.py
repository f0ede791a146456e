"""The tournament hall: every table on one MQTT broker, one hub, one dashboard.

The topics and payloads both sides use are in :mod:`controller.hall_protocol`, the
table's side of the link in :mod:`controller.table_link`; here are the hub's own parts:
``ingest`` and ``store`` take and keep what the tables send, ``broker`` starts a
private Mosquitto for tests and ``kaeshi hub simulate``.
"""
