#!/bin/sh
# pre_llm_call: adds a line of context to every turn.
cat >/dev/null
printf '{"context": "Project rules: keep answers short; never touch /etc."}\n'
