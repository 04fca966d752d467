"""Open a ufsel HTML report in headless Chromium, check it, take a screenshot.

Usage::

    python benchmarks/tools/check_report_chromium.py RESULTS_DIR|PAGE.html [--screenshot PATH] [--height PX]

A folder is checked through its ``report.html`` (``ufsel bench``, ``ufsel report``); an
HTML file is checked as it is (``ufsel select --report``, whose figures are embedded).

Checks, failing with exit status 1 when one does not hold:

* every local resource the page links (``src=``, ``href=``) exists, and every
  linked PNG is a PNG file; a ``data:`` URI is embedded, any other scheme is
  an external resource and a fault;
* Chromium loads the page (``--dump-dom``) and the rendered DOM holds the
  report's title, its tables and one ``<img>`` per figure (linked or embedded);
* Chromium logs no console message and no error about the page (the report
  has no script, so any console message is a fault);
* the screenshot is written (a PNG of the page, default
  ``RESULTS_DIR/report_screenshot.png``).

Chromium comes from Debian's packages: ``apt-get install chromium``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(binary, args, timeout):
    with tempfile.TemporaryDirectory(prefix="ufsel-chromium-") as profile:
        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", f"--user-data-dir={profile}", "--enable-logging=stderr",
               "--v=0", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def check_report(results_dir, screenshot=None, *, height=5000, width=1280, timeout=120):
    """Return (problems, screenshot path). ``problems`` is empty when the report is fine.

    ``results_dir`` is a results folder (its ``report.html``) or an HTML file."""
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("no Chromium found (apt-get install chromium)")
    page = Path(results_dir).resolve()
    if page.suffix.lower() not in (".html", ".htm"):
        page = page / "report.html"
    results_dir = page.parent
    if not page.is_file():
        return [f"{page} does not exist"], None
    text = page.read_text(encoding="utf-8")
    problems = []
    links = re.findall(r"""(?:src|href)=['"]([^'"#]+)['"]""", text)
    for link in links:
        if link.startswith("data:"):
            continue  # embedded in the page
        if re.match(r"^[a-z]+:", link):
            problems.append(f"external resource {link!r} (the report must be self-contained)")
            continue
        target = results_dir / link
        if not target.is_file():
            problems.append(f"missing linked file {link}")
        elif target.suffix == ".png" and target.read_bytes()[:8] != PNG_MAGIC:
            problems.append(f"{link} is not a PNG file")
    url = page.as_uri()

    dom = _chromium(binary, ["--dump-dom", url], timeout)
    if dom.returncode != 0:
        problems.append(f"chromium --dump-dom exited with {dom.returncode}: {dom.stderr[-500:]}")
    html = dom.stdout
    title = re.search(r"<title>(.*?)</title>", text, re.S)
    if title and title.group(1) not in html:
        problems.append("the rendered DOM lacks the report's title")
    n_img_src = text.count("<img ")
    if html.count("<img ") != n_img_src:
        problems.append(f"rendered DOM has {html.count('<img ')} images, the page {n_img_src}")
    if "<table>" not in html:
        problems.append("the rendered DOM has no table")

    screenshot = Path(screenshot) if screenshot else page.with_name(f"{page.stem}_screenshot.png")
    shot = _chromium(binary, [f"--screenshot={screenshot}", f"--window-size={width},{height}",
                              "--hide-scrollbars", url], timeout)
    if shot.returncode != 0 or not screenshot.is_file():
        problems.append(f"no screenshot (exit {shot.returncode}): {shot.stderr[-500:]}")
    for log in (dom.stderr, shot.stderr):
        for line in log.splitlines():
            if ":CONSOLE" in line or ("ERROR" in line and "file://" in line):
                problems.append(f"chromium: {line.strip()}")
    return problems, screenshot


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results_dir")
    p.add_argument("--screenshot")
    p.add_argument("--height", type=int, default=5000)
    args = p.parse_args(argv)
    try:
        problems, shot = check_report(args.results_dir, args.screenshot, height=args.height)
    except FileNotFoundError as exc:
        print(f"check_report_chromium: {exc}", file=sys.stderr)
        return 2
    for pr in problems:
        print(f"PROBLEM: {pr}")
    print(f"screenshot: {shot}")
    print("report OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
