#!/bin/sh
# An observer: appends every payload it sees to $HERMES_HOME/logs/hooks.jsonl.
mkdir -p "${HERMES_HOME:-.}/logs"
cat >> "${HERMES_HOME:-.}/logs/hooks.jsonl"
echo >> "${HERMES_HOME:-.}/logs/hooks.jsonl"
