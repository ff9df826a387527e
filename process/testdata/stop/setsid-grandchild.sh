#!/bin/sh
# A grandchild in a new session (outside the group) holds stdout; the
# leader exits 0 once the grandchild has left the group.
setsid sleep 600 &
while [ "$(cut -d' ' -f6 /proc/$!/stat)" != "$!" ]; do :; done
echo "child $!"
