#!/bin/sh
# Writes FLOOD_COUNT lines of FLOOD_LINE (requests that want an answer on
# stdin), never reads stdin, and ignores SIGINT.
trap '' INT
echo ready
i=0
while [ "$i" -lt "${FLOOD_COUNT:-3000}" ]; do
	printf '%s\n' "${FLOOD_LINE:-request}"
	i=$((i + 1))
done
exec sleep 600
