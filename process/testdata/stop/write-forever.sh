#!/bin/sh
# Floods stdout and ignores SIGINT.
trap '' INT
echo ready
exec yes flood
