#!/bin/sh
# A grandchild in the process group holds stdout; the leader ignores SIGINT.
trap '' INT
sleep 600 &
echo "child $!"
echo ready
exec sleep 600
