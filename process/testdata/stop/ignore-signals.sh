#!/bin/sh
# Ignores SIGINT and SIGTERM and never reads stdin: only the SIGKILL
# after the grace ends it.
trap '' INT TERM
echo ready
exec sleep 600
