"""`make docs`: the static site builds from the notebooks and the committed reports; every internal link and image of it
resolves (always checked), and headless Chromium loads the home page and an executed experiment page with every figure."""
import fcntl, json, os, re, select, shutil, subprocess, time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit
import pytest
from tpr_nb.docs import MARK, build_site, check_site, collect_pages
from tpr_nb.env import project_root

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason=f"no Chromium binary on PATH (looked for {', '.join(BROWSERS)}): "
    "`make install` installs the Debian package chromium where apt-get can run as root")

@pytest.fixture(scope="session")
def site(tmp_path_factory, worker_id):
    "The project's site, built once per test run: under pytest-xdist the workers share one build (pytest-xdist's recipe, with a lock)."
    if worker_id == "master":
        out = tmp_path_factory.mktemp("site") / "_docs"
        return out, build_site(out, quiet=True)
    # this run's folder, common to its workers
    shared = tmp_path_factory.getbasetemp().parent
    out, record = shared / "docs_site" / "_docs", shared / "docs_site.json"
    with open(shared / "docs_site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists(): record.write_text(json.dumps(build_site(out, quiet=True)))
        return out, json.loads(record.read_text())

class _Hrefs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []
    def handle_starttag(self, tag, attrs): self.hrefs += [v for k, v in attrs if tag == "a" and k == "href" and v]

def test_site_links_every_page_and_nothing_dangles(site):
    out, done = site
    # every relative link of the sources names a file
    assert done["broken"] == [], done["broken"]
    # every href/src of the site resolves; every image decodes
    assert check_site(out) == []
    assert (out / MARK).exists() and done["seconds"] < 300, done
    pages = collect_pages(project_root())
    assert {str(pg.out) for pg in pages} == {str(p.relative_to(out)) for p in out.rglob("*.html")}
    p = _Hrefs()
    p.feed((out / "index.html").read_text())
    linked = {
        os.path.normpath(unquote(urlsplit(h).path)) for h in p.hrefs if not urlsplit(h).scheme
    }
    # the home page links every page
    assert {str(pg.out) for pg in pages if str(pg.out) != "index.html"} <= linked
    executed = [pg for pg in pages if pg.src.parts[0] == "reports" and pg.src.suffix == ".ipynb"]
    reports = [pg for pg in pages if pg.src.name == "REPORT.md"]
    assert executed and reports, "no committed report to render"
    # REPORT.md's links to its notebooks and figures are rewritten
    for r in reports:
        html = (out / r.out).read_text()
        assert ".ipynb\"" not in html and ".md\"" not in html

def _above(fd: int, low: int) -> int:
    "`fd` moved to a descriptor number >= `low`."
    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low)
    os.close(fd)
    return new

class Chromium:
    "Headless Chromium driven through the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out), no extra package."
    def __init__(self, profile_dir: Path):
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--remote-debugging-pipe", f"--user-data-dir={profile_dir}",
            "--host-resolver-rules=MAP * ~NOTFOUND", "about:blank"
        ]  # no network: CDN scripts fail at once
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()
        # so that placing them at 3 and 4 cannot overwrite one another
        to_r, from_w = (_above(fd, 10) for fd in (to_r, from_w))
        def at_3_and_4():  # in the child: dup2 leaves 3 and 4 inheritable, all else closes on exec
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)
        self.proc = subprocess.Popen([CHROMIUM, *flags], preexec_fn=at_3_and_4, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self._n, self._buf, self.events = 0, b"", []

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            if not select.select([self._from_r], [], [], max(0.0, deadline - time.time()))[0]:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_r, 1 << 20)
            if not chunk: raise RuntimeError("Chromium closed its DevTools pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        self._n += 1
        msg = dict(id=self._n, method=method, params=params or {}, **({"sessionId": session} if session else {}))
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._n:
                if "error" in m: raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def wait_event(self, method: str, session: str, timeout: float = 60) -> dict:
        deadline = time.time() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def load(self, url: str, expression: str) -> tuple:
        "Open `url` in a new tab, wait for its load event: (the value of the JavaScript `expression`, awaited; the URLs whose loading failed)."
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=s)
        self.send("Network.enable", session=s)
        self.send("Page.navigate", {"url": url}, session=s)
        self.wait_event("Page.loadEventFired", s)
        r = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session=s)
        if "exceptionDetails" in r: raise RuntimeError(r["exceptionDetails"])
        mine = [m for m in self.events if m.get("sessionId") == s]
        urls = {
            m["params"]["requestId"]: m["params"]["request"]["url"]
            for m in mine if m.get("method") == "Network.requestWillBeSent"
        }
        failed = [
            urls.get(m["params"]["requestId"], "?") for m in mine
            if m.get("method") == "Network.loadingFailed"
        ]
        self.events = [m for m in self.events if m.get("sessionId") != s]
        self.send("Target.closeTarget", {"targetId": target})
        return r["result"]["value"], failed

    def close(self):
        self.proc.terminate()
        try: self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_w)
        os.close(self._from_r)

INSPECT = """(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  return {title: document.title, cells: document.querySelectorAll('.jp-Cell').length,
          images: imgs.map(i => ({src: i.getAttribute('src').slice(0, 60), width: i.naturalWidth})),
          sheets: document.querySelectorAll('link[rel=stylesheet]').length,
          links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href)};
})()"""

@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = Chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()

def _experiment_page(out: Path) -> Path:
    "An executed experiment notebook's page with figures (URN Dyck when the quick report has it)."
    pages = sorted(out.glob("reports/*/notebooks/*/*.html"),
                   key=lambda p: (p.parts[-2:] != ("urn", "10_dyck.html"), str(p)))
    return next(p for p in pages if "<img" in p.read_text())

@needs_chromium
@pytest.mark.parametrize("which", ["home", "experiment"])
def test_chromium_loads_every_figure_and_every_link_resolves(site, browser, which):
    out, _ = site
    page = out / "index.html" if which == "home" else _experiment_page(out)
    got, failed = browser.load(page.resolve().as_uri(), INSPECT)
    assert got["cells"] > 0 and got["title"] and got["sheets"], got["title"]
    # every file the page loads (stylesheets, images) is there
    assert [u for u in failed if u.startswith("file:")] == []
    if which == "experiment": assert got["images"], f"{page} shows no figure"
    # every figure decoded and drawn
    assert [i for i in got["images"] if i["width"] == 0] == []
    local = [urlsplit(h) for h in got["links"] if h.startswith("file:")]
    # every internal link opens a file...
    assert local and [h.path for h in local if not Path(unquote(h.path)).is_file()] == []
    # ...of the site
    assert all(Path(unquote(h.path)).resolve().is_relative_to(out.resolve()) for h in local)

MATHS = """(async () => {
  if (window.MathJax) await new Promise(r => MathJax.Hub.Queue(r));
  const typeset = document.querySelectorAll('.MathJax, .MathJax_Display').length;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = []; let n;
  while ((n = walker.nextNode())) {
    const p = n.parentElement;
    if (!p || p.closest('script, style, pre, code, .MathJax, .MathJax_Display, .MathJax_Preview')) continue;
    const t = n.textContent;
    if (/\\$[^$\\s][^$]*\\$/.test(t)) raw.push('formula: ' + t.trim().slice(0, 80));
    if (/(^|\\n)\\s*\\|.*\\|\\s*(\\n|$)/.test(t) && /\\|\\s*:?-{3,}/.test(t)) raw.push('table: ' + t.trim().slice(0, 80));
  }
  return {mathjax: !!window.MathJax, typeset, raw};
})()"""

def test_no_page_loads_a_script_from_another_site(site):
    "Every page works offline: no <script src> points off the site (MathJax is the site's own copy)."
    out, _ = site
    offsite = [(str(p.relative_to(out)), m) for p in sorted(out.rglob("*.html"))
               for m in re.findall(r'<script[^>]+src="(https?://[^"]+)"', p.read_text())]
    assert offsite == [], offsite[:5]

MATH_PAGES = [
    "nbs/00_algebra.html", "nbs/02c_optim.html", "nbs/tpr_rnn/00_model.html",
    "nbs/tpru/00_cell.html", "nbs/urn/00_model.html", "index.html", "reports/quick/REPORT.html",
    "reports/full/REPORT.html", "reports/REPORT.html"
]

@needs_chromium
@pytest.mark.parametrize("page", MATH_PAGES)
def test_chromium_typesets_every_formula_and_table_offline(site, browser, page):
    "In a browser with no network, the page shows no raw $-formula and no table as pipe text; maths pages typeset."
    out, _ = site
    got, failed = browser.load((out / page).resolve().as_uri(), MATHS)
    assert got["mathjax"], f"{page}: MathJax did not load"
    assert got["raw"] == [], f"{page}: {got['raw'][:3]}"
    # MathJax 2.7 probes its TeX fonts, then uses the STIX ones shipped
    probes = "_static/mathjax/fonts/HTML-CSS/TeX/"
    assert [u for u in failed if u.startswith(("file:", "http")) and probes not in u] == [], failed
    if page.startswith("nbs/") and page != "index.html": assert got["typeset"] > 0, f"{page}: no equation typeset"

def test_the_site_has_an_api_page_for_every_module(site):
    "One page per module with an `__all__`, listing each of its names, linked from the contents."
    import importlib
    from tpr_nb.docs import api_modules, module_name
    out, _ = site
    mods = [module_name(p) for p in api_modules(project_root())]
    assert {"tpr_nb.optim", "tpr_nb.protocol", "tpr_nb.tpr_rnn.model", "tpr_nb.tpru.cell"} <= set(mods)
    home = (out / "index.html").read_text()
    for m in mods:
        page = (out / "api" / f"{m}.html").read_text()
        missing = [n for n in importlib.import_module(m).__all__ if f"<code>{n}</code>" not in page]
        assert missing == [], f"{m}: {missing[:5]}"
        assert f'api/{m}.html"' in home, f"the contents do not link {m}"
