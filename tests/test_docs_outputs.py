"""What the guide and the README quote is what the program prints and offers.

* every console block marked ``<!-- output -->`` holds what its commands print now
  (``docs/tools/render_outputs.py --check``; the tool itself is tested on a small file);
* every option of ``ufsel select`` that the guide names exists in its ``--help``;
* the guide's threshold for the route's own standardisation is the code's constant.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "docs" / "tools" / "render_outputs.py"
YOUR_DATA = ROOT / "docs" / "guide" / "your_data.md"

pytestmark = pytest.mark.skipif(not TOOL.is_file() or not YOUR_DATA.is_file(),
                                reason="docs/ is not in this checkout")


def _tool():
    sys.path.insert(0, str(TOOL.parent))
    try:
        import render_outputs
    finally:
        sys.path.remove(str(TOOL.parent))
    return render_outputs


@pytest.mark.timeout(600)
def test_quoted_outputs_are_what_the_program_prints():
    proc = subprocess.run([sys.executable, str(TOOL), "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=580)
    assert proc.returncode == 0, (
        "quoted output is stale; run `python docs/tools/render_outputs.py` and reread the "
        f"prose around the changed blocks:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}")


def test_the_guide_marks_its_quoted_outputs():
    # every console block of the guide that shows output is generated
    tool = _tool()
    lines = YOUR_DATA.read_text().splitlines()
    marked = {b.start for b in tool.find_blocks(lines, YOUR_DATA)}
    for i, line in enumerate(lines):
        if line.strip() == "```console":
            body = []
            for nxt in lines[i + 1:]:
                if nxt.strip() == "```":
                    break
                body.append(nxt)
            shows_output = any(not x.strip().startswith("$ ") for x in body if x.strip())
            assert not shows_output or i in marked, f"your_data.md:{i + 1} is not generated"


def test_render_outputs_regenerates_a_stale_block(tmp_path):
    tool = _tool()
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Text.\n\n<!-- output-setup -->\n```python\nopen('a.txt', 'w').write('one\\ntwo\\n')\n"
        "```\n\n  <!-- output -->\n  ```console\n  $ head -1 a.txt\n  stale\n"
        "  $ echo '{\"a\": [1, 2], \"b\": 0.333333, \"c\": 3}' > r.json; "
        "echo 'done (1.5 s) 0.12345678901234567'\n  ```\n\n"
        "<!-- output: json r.json a,b -->\n```json\n{}\n```\n")
    new = tool.render_file(doc)
    assert "  $ head -1 a.txt\n  one\n" in new and "stale" not in new
    assert "done (seconds not shown) 0.123456789..." in new
    assert new.split("```json\n")[1].startswith('{\n  "a": [1, "..."],\n  "b": 0.3333\n}\n')
    assert tool.main(["--check", str(doc)]) == 1
    assert tool.main([str(doc)]) == 0 and doc.read_text() == new
    assert tool.main(["--check", str(doc)]) == 0


def test_render_outputs_refuses_a_marker_without_a_block(tmp_path, capsys):
    tool = _tool()
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- output -->\nno block here\n")
    assert tool.main(["--check", str(doc)]) == 2
    assert "must be followed by a fenced block" in capsys.readouterr().err


def _select_help():
    from ufsel.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["select"].format_help()


def test_options_the_guide_names_exist():
    """Every ``--option`` of your_data.md (its prose, tables and commands), and of the
    README's and Getting started's ``ufsel select`` lines, is in ``ufsel select --help``."""
    help_text = _select_help()
    offered = set(re.findall(r"(--[a-z][a-z-]*)", help_text))
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", YOUR_DATA.read_text()))
    for doc in (ROOT / "README.md", ROOT / "docs" / "getting_started.md"):
        for line in doc.read_text().splitlines():
            if "ufsel select" in line:
                named |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", line))
    assert len(named) > 15
    assert not sorted(named - offered), \
        f"the guide names options `ufsel select --help` lacks: {sorted(named - offered)}"


def test_standardisation_threshold_is_the_code_constant():
    from ufsel.model_selection import UNITS_SPREAD

    text = " ".join(" ".join(p.read_text() for p in sorted(YOUR_DATA.parent.glob("*.md")))
                    .split())
    stated = [float(m) for m in re.findall(
        r"(?:differ|spread)(?: by)? more than (\d+(?:\.\d+)?)-fold", text)]
    assert len(stated) >= 3, "the guide no longer states the route's threshold"
    assert set(stated) == {UNITS_SPREAD}
    help_text = " ".join(_select_help().split())
    assert re.findall(r"more than (\d+(?:\.\d+)?)-fold", help_text) == [f"{UNITS_SPREAD:g}"]
