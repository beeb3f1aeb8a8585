#!/usr/bin/env python3
# falcond-attack.py PORT N STOPFILE REPORT NADDR [SLOW] - the idle-connection
# and slowloris attack of falcond-idle.sh, prolog-idle.sh and
# falcond-starve.sh: N connections to 127.0.0.1:PORT from 127.0.0.2 ..
# 127.0.0.(1+NADDR) (NADDR 0: from 127.0.0.1, the clients' own address),
# each opened again when falcond closes it; every SLOW-th (default 10; 1:
# all) sends its headers one byte a second.  Until STOPFILE exists; REPORT
# gets "OPEN OPENED REFUSED CLOSED" each second (renamed into place).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
import os, resource, socket, sys, time
port, n, stop, report = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
naddr = int(sys.argv[5])                # sources 127.0.0.2 .. 127.0.0.(1+naddr)
slow = int(sys.argv[6]) if len(sys.argv) > 6 else 10
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, n + 200)), hard))
head = b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + b"X-a: b\r\n" * 1000
socks, opened, refused, closed = {}, 0, 0, 0
def fill():
    global opened, refused
    for i in range(n):
        if i in socks: continue
        s = socket.socket(); s.setblocking(False)
        s.bind(("127.0.0.%d" % (2 + i % naddr) if naddr else "127.0.0.1", 0))
        try: s.connect(("127.0.0.1", port))
        except BlockingIOError: pass
        except OSError: refused += 1; s.close(); continue
        socks[i] = [s, 0]; opened += 1
last = 0
while not os.path.exists(stop):
    fill()
    for i, (s, off) in list(socks.items()):
        try:                            # closed by falcond: open it again
            if s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                raise ConnectionResetError()
        except (BlockingIOError, InterruptedError): pass
        except OSError:
            s.close(); del socks[i]; closed += 1; continue
        if i % slow: continue           # slowloris: one byte a second
        try:
            s.send(head[off:off + 1]); socks[i][1] = (off + 1) % len(head)
        except (BlockingIOError, InterruptedError): pass
        except OSError:
            s.close(); del socks[i]; closed += 1
    # whole or not at all: a reader (falcond-idle.sh's read) must never
    # see the file truncated and not yet written
    with open(report + ".tmp", "w") as f:
        f.write("%d %d %d %d\n" % (len(socks), opened, refused, closed))
    os.replace(report + ".tmp", report)
    time.sleep(1)
