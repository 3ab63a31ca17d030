# SPDX-License-Identifier: BSD-3-Clause
# cdp.py — drive a real headless Chromium through the Chrome DevTools Protocol
# with nothing but the Python 3 standard library: Chromium is started with
# --remote-debugging-port=0 and a private profile, its port is read from
# DevToolsActivePort, and the page's WebSocket is spoken by hand (RFC 6455:
# masked client frames, fragmented and large server frames, ping/pong).
# Console messages, uncaught exceptions, log entries and network requests are
# collected as events so that tests can assert "no errors" and "no network".
# Used by tests/viewer/test_browser_*.py.
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

CHROMIUM = os.environ.get("HC_CHROMIUM", "/usr/bin/chromium")


class CDPError(Exception):
    pass


class WebSocket:
    def __init__(self, url, timeout=60):
        assert url.startswith("ws://")
        hostport, path = url[5:].split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = ("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key))
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CDPError("websocket handshake: connection closed")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise CDPError("websocket handshake refused: %r" % head[:200])

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise CDPError("websocket closed by the browser")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        message, first_op = b"", None
        while True:
            b0, b1 = self._read(2)
            fin, op = b0 & 0x80, b0 & 0x0F
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
            if op == 0x9:                       # ping
                self._send_frame(0xA, payload)
                continue
            if op == 0xA:                       # pong
                continue
            if op == 0x8:
                raise CDPError("websocket closed by the browser")
            if op != 0:
                first_op = op
            message += payload
            if fin:
                return message.decode("utf-8") if first_op == 0x1 else message

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """One headless Chromium with one page."""

    def __init__(self, width=1400, height=1000):
        if not os.path.exists(CHROMIUM):
            raise FileNotFoundError(CHROMIUM)
        self.profile = tempfile.mkdtemp(prefix="hc-chromium-")
        self.log = open(os.path.join(self.profile, "chromium.log"), "w")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--disable-default-apps",
             "--user-data-dir=" + self.profile, "--remote-debugging-port=0",
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 60
        while True:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[0].strip():
                    port = int(lines[0])
                    break
            if self.proc.poll() is not None or time.time() > deadline:
                self.close()
                raise CDPError("chromium did not start (see its log)")
            time.sleep(0.05)
        page = None
        while page is None and time.time() < deadline:
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10) as r:
                targets = json.load(r)
            page = next((t for t in targets if t.get("type") == "page"), None)
            if page is None:
                time.sleep(0.1)
        if page is None:
            self.close()
            raise CDPError("no page target")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id = 0
        self.events = []
        self.width, self.height = width, height
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")

    def call(self, method, **params):
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise CDPError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout=120):
        deadline = time.time() + timeout
        for k, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(k)
        self.ws.sock.settimeout(timeout)
        while time.time() < deadline:
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                if msg["method"] == method:
                    return msg
                self.events.append(msg)
        raise CDPError("timed out waiting for " + method)

    def navigate(self, url):
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            desc = d.get("exception", {}).get("description") or d.get("text")
            raise CDPError("evaluate %r: %s" % (expr[:80], desc))
        return r["result"].get("value")

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button, clickCount=clicks)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)

    def click_selector(self, selector):
        box = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null;"
                        " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % json.dumps(selector))
        if box is None:
            raise CDPError("no element " + selector)
        self.click(box[0], box[1])

    def errors(self):
        """Console errors, uncaught exceptions and error log entries so far."""
        self.call("Runtime.evaluate", expression="0")   # drain pending events
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append("exception: " + (d.get("exception", {}).get("description") or d.get("text", "")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                 for a in p.get("args", []))))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append("log: %s (%s)" % (p["entry"].get("text"), p["entry"].get("url", "")))
        return out

    def requests(self):
        """URLs the page asked the network stack for."""
        self.call("Runtime.evaluate", expression="0")
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]

    def screenshot(self, path, full=True):
        """PNG of the whole page (full) or of the viewport."""
        m = self.call("Page.getLayoutMetrics")
        size = m.get("cssContentSize") or m["contentSize"]
        h = int(min(size["height"], 16000)) if full else self.height
        self.call("Emulation.setDeviceMetricsOverride", width=self.width, height=h,
                  deviceScaleFactor=1, mobile=False)
        shot = self.call("Page.captureScreenshot", format="png")
        self.call("Emulation.clearDeviceMetricsOverride")
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def close(self):
        if getattr(self, "ws", None):
            self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)
