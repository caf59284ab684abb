"""Headless Chromium driven over its DevTools pipe, with no dependency: load a page, read back its DOM.

    from headless_chromium import Browser, find_browser
    browser = Browser(find_browser(), "/tmp/profile"); html, script_errors = browser.dom(url); browser.close()
"""

import fcntl
import json
import os
import select
import shutil
import signal
import time

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
# --no-sandbox: Chromium refuses to start sandboxed as root, which is how CI containers run.
BROWSER_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1")   # a page may not reach other hosts
PAGE_TIMEOUT = 60


def find_browser():
    """The path of a Chromium-family browser: $CHROMIUM, or the first of BROWSERS on PATH; None when there is none."""
    named = os.environ.get("CHROMIUM")
    if named:
        return shutil.which(named)
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


class Browser:
    """One headless Chromium driven over its DevTools pipe (fd 3 in, fd 4 out): load a url, read back its DOM."""

    def __init__(self, path, profile):
        to_browser, self.commands = os.pipe()
        self.replies, from_browser = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser, from_browser)]
        devnull = os.open(os.devnull, os.O_RDWR)
        actions = [(os.POSIX_SPAWN_DUP2, high[0], 3), (os.POSIX_SPAWN_DUP2, high[1], 4),
                   (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                   (os.POSIX_SPAWN_DUP2, devnull, 2)]
        argv = [path, *BROWSER_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]
        self.pid = os.posix_spawn(path, argv, os.environ, file_actions=actions)
        for fd in (to_browser, from_browser, *high, devnull):
            os.close(fd)
        self.buffer, self.next_id, self.events = b"", 0, []
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            self.call("Page.enable", session=self.session)
            self.call("Runtime.enable", session=self.session)
        except (OSError, RuntimeError):
            self.close()
            raise

    def call(self, method, session=None, **params):
        """Send one DevTools command and wait for its reply; events that arrive meanwhile are kept."""
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply["result"]
            self.events.append(reply)

    def receive(self):
        """The next message from the browser, waiting at most PAGE_TIMEOUT seconds for it."""
        while b"\0" not in self.buffer:
            if not select.select([self.replies], [], [], PAGE_TIMEOUT)[0]:
                raise RuntimeError(f"the browser sent nothing for {PAGE_TIMEOUT} s")
            chunk = os.read(self.replies, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def dom(self, url):
        """(the DOM of URL serialized once its load event fired, the messages of the exceptions its scripts threw)."""
        self.events = []
        navigation = self.call("Page.navigate", session=self.session, url=url)
        if navigation.get("errorText"):
            raise RuntimeError(f"the browser could not load {url}: {navigation['errorText']}")
        while not any(event.get("method") == "Page.loadEventFired" for event in self.events):
            self.events.append(self.receive())
        html = self.call("Runtime.evaluate", session=self.session, expression="document.documentElement.outerHTML",
                         returnByValue=True)["result"]["value"]
        # Read after the evaluation, so an exception thrown while it ran is counted too.
        thrown = [event["params"]["exceptionDetails"] for event in self.events
                  if event.get("method") == "Runtime.exceptionThrown"]
        return html, [details.get("exception", {}).get("description") or details["text"] for details in thrown]

    def viewport(self, width, height):
        """Lay pages out at width x height CSS pixels from the next load on, as a window of that size would."""
        self.call("Emulation.setDeviceMetricsOverride", session=self.session, width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the loaded page."""
        return self.call("Runtime.evaluate", session=self.session, expression=expression,
                         returnByValue=True)["result"].get("value")

    def close(self):
        """Ask the browser to quit; kill it if it has not within ten seconds."""
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError):
            pass
        os.close(self.commands)
        os.close(self.replies)
        for _ in range(100):
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                return
            time.sleep(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
