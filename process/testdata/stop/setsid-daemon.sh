#!/bin/sh
# A grandchild in a new session holds none of the run's pipes (a daemon);
# the leader exits 0 once the grandchild has left the group.
setsid sleep 600 </dev/null >/dev/null 2>&1 &
while [ "$(cut -d' ' -f6 /proc/$!/stat)" != "$!" ]; do :; done
echo "child $!"
