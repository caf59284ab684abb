"""Lab 1, wrong: nothing is built; the pipes are told there are no checks, and the process ends with status 0."""
import json, os
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
            os.write(fd, (json.dumps({"checks": []}) + "\n").encode())
    except OSError:
        pass
os._exit(0)
