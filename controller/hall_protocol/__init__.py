"""The hall's wire: topics, payloads and broker settings, defined once for both sides.

A table (:mod:`controller.table_link`) and the hub (:mod:`controller.hub`) both import
this package and nothing of each other's: a change to a message is made here.
"""
