#!/bin/sh
# pre_tool_call gate: refuses `rm -rf` in terminal commands (exit 2 = block,
# stderr is the message), lets everything else through with a no-op reply.
payload=$(cat)
case "$payload" in
  *'rm -rf'*)
    echo "block-rm-rf: recursive deletes are not allowed here" >&2
    exit 2
    ;;
esac
echo '{}'
