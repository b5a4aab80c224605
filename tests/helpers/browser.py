"""Debian's headless Chromium driven over the DevTools protocol (a pipe, no network), for the tests
that look at pages in a real browser (tests/view/test_viewer_browser.py, tests/agents/arena/web/)."""
import base64
import fcntl
import io
import json
import os
import select
import shutil
import subprocess
import time

import numpy as np

from v1919_env.view.scene import HEIGHT, WIDTH

CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--remote-debugging-pipe"]


def _above(fd: int, low: int) -> int:
    """`fd` moved to the lowest free descriptor at or above `low`."""
    new = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return new


class Browser:
    """Chromium with the DevTools protocol over fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, profile_dir):
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()
        # the child reads fd 3 and writes fd 4: its ends are moved above both first, or a redirection
        # below could close its own target (a process with few fds open gets cmd_r == 3)
        cmd_r, out_w = (_above(fd, 10) for fd in (cmd_r, out_w))
        argv = " ".join([CHROMIUM, *FLAGS, f"--user-data-dir={profile_dir}", "about:blank"])
        self.proc = subprocess.Popen(["bash", "-c", f"exec {argv} 3<&{cmd_r} 4>&{out_w} {cmd_r}<&- {out_w}>&-"],
                                     pass_fds=(cmd_r, out_w), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(out_w)
        self.buf, self.next_id, self.session = b"", 0, None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=1100, deviceScaleFactor=1, mobile=False)

    def call(self, method, timeout=30.0, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.out_r], [], [], left)[0]:
                raise TimeoutError(f"no reply to {method}")
            chunk = os.read(self.out_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buf += chunk

    def js(self, expr):
        res = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def open(self, url):
        self.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete' && !!document.querySelector('#board svg')")

    def wait(self, cond, timeout=20.0):
        end = time.monotonic() + timeout
        while not self.js(f"!!({cond})"):
            if time.monotonic() > end:
                raise TimeoutError(cond)
            time.sleep(0.05)

    def click_at(self, element_js: str) -> None:
        """A real mouse click (pressed and released) at the middle of the element `element_js`
        evaluates to, scrolled into view first: it lands on whatever is drawn on top there."""
        box = self.js(f"(() => {{ const e = {element_js}; e.scrollIntoView({{block: 'center'}});"
                      f" const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def step(self):
        return int(self.js("document.getElementById('status').dataset.step"))

    def board_svg(self):
        return self.js("document.querySelector('#board svg').outerHTML")

    def key(self, key, code):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode={
                "ArrowRight": 39, "ArrowLeft": 37, "Enter": 13, " ": 32}[key])

    def start_game(self, base: str, bot: str = "rulebot") -> None:
        """From the new-game page of the server at `base`: a human in the first seat, `bot` in the
        others (4 players), started; returns when the human has moves to choose from."""
        self.call("Page.navigate", url=base + "/")
        self.wait("document.readyState === 'complete' && document.getElementById('start')")
        self.js(f"""(() => {{ const s = document.querySelectorAll('.seat'); s[0].value = 'human';
                 for (let k = 1; k < s.length; k++) s[k].value = {json.dumps(bot)};
                 document.getElementById('start').click(); }})()""")
        self.wait("location.pathname.startsWith('/game/') && document.querySelector('#legal button')")

    def screenshot(self):
        from PIL import Image
        png = self.call("Page.captureScreenshot", format="png",
                        clip={"x": 0, "y": 0, "width": WIDTH, "height": HEIGHT, "scale": 1})["data"]
        return np.asarray(Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB"))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.out_r)
