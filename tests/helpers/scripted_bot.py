"""A bot process for the protocol tests, stdlib only (it starts in milliseconds):

    python tests/helpers/scripted_bot.py MODE [AT]

It speaks the protocol (docs/protocol.md) and plays the first legal id, except at its decision
number AT (0-based; default 2), where MODE decides what goes wrong:

    ok        nothing
    crash     writes "boom" on stderr and exits 3
    hang      sleeps for an hour
    flood     writes 8 MiB without a newline
    chatter   writes 5000 info lines
    bigchatter writes 8 info lines of 256 KiB
    slow      sleeps 0.6 s, then answers
    burn      spins 0.4 s of CPU, then answers
    deep      replies an action nested 100,000 levels deep
    garbage   writes a line that is not JSON
    string    replies {"type": "action", "id": "12"}
    illegal   replies an id the mask forbids (-1)
    memory    allocates 2 GiB (the test sets a smaller memory limit)
    cpu       spins (the test sets a CPU limit)
    version   its hello says protocol version 99 (AT is ignored)
    slowstart sleeps an hour before its hello (AT is ignored)
    record    like ok; it appends every message it received to the file named by $SCRIPTED_BOT_LOG
"""
import json
import os
import sys
import time

mode = sys.argv[1]
at = int(sys.argv[2]) if len(sys.argv) > 2 else 2
log = os.environ.get("SCRIPTED_BOT_LOG")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


n = 0
for line in sys.stdin:
    msg = json.loads(line)
    if log:
        with open(log, "a") as fh:
            fh.write(line)
    kind = msg["type"]
    if kind == "hello":
        if mode == "slowstart":
            time.sleep(3600)
        send({"type": "hello", "protocol": "v1919-bot", "version": 99 if mode == "version" else 1,
              "name": f"scripted-{mode}", **({} if mode == "record" else {"omit": ["observation", "position"]})})
    elif kind == "new_game":
        send({"type": "ready"})
    elif kind == "decide":
        k, n = n, n + 1
        if k == at:
            if mode == "crash":
                sys.stderr.write("boom\n")
                sys.stderr.flush()
                sys.exit(3)
            if mode == "hang":
                time.sleep(3600)
            if mode == "flood":
                sys.stdout.write("x" * (8 << 20))
                sys.stdout.flush()
                time.sleep(3600)
            if mode == "chatter":
                for _ in range(5000):
                    sys.stdout.write('{"type": "info", "text": "thinking"}\n')
                sys.stdout.flush()
            if mode == "garbage":
                sys.stdout.write("I choose action twelve\n")
                sys.stdout.flush()
                continue
            if mode == "slow":
                time.sleep(0.6)
            if mode == "burn":
                t = time.process_time()
                while time.process_time() - t < 0.4:
                    pass
            if mode == "bigchatter":
                for _ in range(8):
                    send({"type": "info", "text": "x" * (256 << 10)})
            if mode == "deep":
                sys.stdout.write('{"type": "action", "id": ' + "[" * 100000 + "]" * 100000 + "}\n")
                sys.stdout.flush()
                continue
            if mode == "string":
                send({"type": "action", "id": str(msg["legal"][0])})
                continue
            if mode == "illegal":
                send({"type": "action", "id": -1})
                continue
            if mode == "memory":
                hog = bytearray(2 << 30)
                hog[-1] = 1
            if mode == "cpu":
                while True:
                    pass
        send({"type": "action", "id": msg["legal"][0]})
    elif kind in ("quit", "error"):
        break
