"""What every ufsel HTML page shares: escaping, tables, the style sheet, the palette.

The benchmark report (``ufsel report``) and the selection report
(:func:`ufsel.model_selection.selection_report`) are static pages with no script
and no external resource; they build their tables with :func:`html_table`, style
them with :data:`REPORT_CSS` and draw with :data:`OKABE_ITO` and :data:`PLOT_RC`.
"""

from __future__ import annotations

import html

__all__ = ["OKABE_ITO", "MARKERS", "PLOT_RC", "REPORT_CSS", "escape", "html_page",
           "html_table"]

#: Okabe & Ito's colour-blind-safe palette (without its yellow, too pale on white).
OKABE_ITO = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X"]
#: matplotlib settings of every report figure.
PLOT_RC = {"font.size": 11, "axes.titlesize": 11, "axes.labelsize": 10.5, "legend.fontsize": 10,
           "xtick.labelsize": 9.5, "ytick.labelsize": 9.5}

REPORT_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.88em}
th,td{border:1px solid #ccc;padding:.25em .55em;text-align:right}
th{background:#f2f2f2}td.l,th.l{text-align:left}
tr.baseline td{color:#555;background:#fafafa}
.pos{color:#1a7f37}.neg{color:#b42318}.muted{color:#777}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
.slow{color:#8a5a00}
.note{background:#fff8e1;border-left:4px solid #f0b429;padding:.5em 1em;font-size:.9em}
.verdict{background:#eef6ff;border-left:4px solid #0072B2;padding:.4em 1em}
td.best{font-weight:bold}td.below{background:#fde8e4;color:#8a1c0c}
td.status{color:#8a1c0c;font-style:italic}
details{margin:.5em 0}summary{cursor:pointer;font-weight:600}
.wide{overflow-x:auto}
code{background:#f4f4f4;padding:0 .2em}
"""


def escape(x):
    """``str(x)`` escaped for HTML text and attribute values."""
    return html.escape(str(x), quote=True)


def html_table(header, rows, *, left=1, row_classes=None, left_last=False):
    """An HTML table in a horizontally scrolling ``div``.

    Parameters
    ----------
    header : list of str
        The column headings (HTML).
    rows : list of list
        The cells (HTML); a cell may be a tuple ``(html, css class)``.
    left : int, default=1
        How many leading columns are left-aligned (the others are numbers).
    row_classes : list of str, default=None
        A CSS class per row (or None).
    left_last : bool, default=False
        Left-align the last column too.
    """
    n = len(header)

    def al(i):
        return "l" if i < left or (left_last and i == n - 1) else ""

    out = ["<table><thead><tr>"]
    out += [f"<th class='{al(i)}'>{h}</th>" for i, h in enumerate(header)]
    out.append("</tr></thead><tbody>")
    for j, r in enumerate(rows):
        cls = f" class='{row_classes[j]}'" if row_classes and row_classes[j] else ""
        cells = []
        for i, c in enumerate(r):
            extra = ""
            if isinstance(c, tuple):  # (html, css class)
                c, extra = c
            cells.append(f"<td class='{(al(i) + ' ' + extra).strip()}'>{c}</td>")
        out.append(f"<tr{cls}>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "<div class='wide'>" + "".join(out) + "</div>"


def html_page(title, body, *, css=REPORT_CSS):
    """A complete page: ``title`` (text, escaped here) and ``body`` (HTML)."""
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{escape(title)}</title><style>{css}</style></head><body>{body}</body>"
            "</html>\n")
