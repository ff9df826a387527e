#!/bin/sh
# Writes FLOOD_HEAD, then FLOOD_COUNT lines of the printf format
# FLOOD_LINE (requests that want an answer on stdin, %d the line's
# number), never reads stdin, and ignores SIGINT.
trap '' INT
echo ready
printf '%s' "${FLOOD_HEAD:-}"
i=0
while [ "$i" -lt "${FLOOD_COUNT:-3000}" ]; do
	printf "${FLOOD_LINE:-request %d}\n" "$i"
	i=$((i + 1))
done
exec sleep 600
