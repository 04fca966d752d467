"""One self-contained HTML page that shows what a fitted :class:`AutoSelector` did."""

from __future__ import annotations

import base64
import io
import math
from pathlib import Path

import numpy as np

from ..utils import atomic_write_text, import_optional
from ..utils._html import OKABE_ITO, PLOT_RC, escape, html_page, html_table

__all__ = ["selection_report"]

#: How many features the stability figure shows at most (the most often selected).
STABILITY_SHOWN = 30
_CHOSEN, _OTHER, _RANDOM, _MUTED = OKABE_ITO[1], OKABE_ITO[0], "0.45", "0.75"


# ------------------------------------------------------------------ the facts
def _facts(selector, feature_names):
    """Everything the page shows, read once from the fitted selector as plain values;
    a piece the run did not compute is None."""
    from .._registry import get_selector

    if not hasattr(selector, "ranking_") or not hasattr(selector, "record"):
        raise ValueError("selection_report needs a fitted AutoSelector (call fit first, or "
                         "use select_features).")
    record = selector.record()
    describe = record.get("describe") or {}
    d = int(selector.n_features_in_)
    names = (list(feature_names) if feature_names is not None
             else list(getattr(selector, "feature_names_in_", [])) or [f"x{j}" for j in range(d)])
    if len(names) != d:
        raise ValueError(f"feature_names has {len(names)} names for {d} features.")
    Xw = getattr(getattr(selector, "description_", None), "Xw", None)
    try:
        cls_name = get_selector(selector.method_).__name__
    except (KeyError, ValueError):
        cls_name = selector.method_
    verdict = selector.verdict_
    curve = selector.curve_
    rec = selector.recommendation_
    return {
        "n_samples": None if Xw is None else int(Xw.shape[0]),
        "n_features": d,
        "names": names,
        "method": selector.method_,
        "method_class": cls_name,
        "params": {k: v for k, v in (selector.params_ or {}).items() if k != "standardize"},
        "n_clusters": selector.n_clusters_,
        "count": int(selector.n_features_to_select_),
        "count_given": record["count"]["decided_by"] == "user",
        "count_decided_by": record["count"]["decided_by"],
        "curve_status": record["count"]["feature_count_curve"],
        "count_note": record.get("count_note"),
        "standardized": bool(describe.get("standardized", (selector.params_ or {})
                                          .get("standardize", False))),
        "scale_spread": record.get("scale_spread"),
        "n_relevant": describe.get("n_relevant"),
        "relevant": describe.get("relevant"),
        "ranking": np.asarray(selector.ranking_),
        "scores": np.asarray(selector.scores_, dtype=float),
        "candidates": list(record.get("candidates") or []),
        "choice": record.get("choice") or {},
        "curve": None if curve is None else {
            "counts": np.asarray(curve.counts), "values": np.asarray(curve.values, dtype=float),
            "null_mean": np.asarray(curve.null_mean, dtype=float),
            "null_std": np.asarray(getattr(curve, "null_std", np.zeros(len(curve.counts))),
                                   dtype=float),
            "suggested": int(curve.n_features), "criterion": curve.criterion},
        "verdict": verdict,
        "recommendation": None if rec is None else rec.to_dict(),
        "recommendation_summary": None if rec is None else rec.summary(),
    }


# ---------------------------------------------------------------- the figures
def _embed(fig, alt):
    """``fig`` as an ``<img>`` holding its SVG (base64): no file beside the page."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f"<img src='data:image/svg+xml;base64,{data}' alt='{escape(alt)}'>"


def _figure(width, height, ncols=1, **kw):
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(1, ncols, squeeze=False, **kw).ravel()


def _count_curve(f):
    c = f["curve"]
    fig, (ax,) = _figure(7.5, 3.8)
    x = c["counts"]
    lo, hi = c["null_mean"] - c["null_std"], c["null_mean"] + c["null_std"]
    ax.fill_between(x, lo, hi, color=_RANDOM, alpha=0.2, lw=0,
                    label="random subsets: mean ± 1 sd")
    ax.plot(x, c["null_mean"], ls=":", color=_RANDOM, lw=1.8)
    ax.plot(x, c["values"], marker="o", color=_OTHER, lw=1.8,
            label=f"top features of {f['method_class']}")
    ax.axvline(f["count"], color=_CHOSEN, lw=2, label=f"chosen count: {f['count']}")
    if c["suggested"] != f["count"]:
        ax.axvline(c["suggested"], color=_OTHER, lw=1.2, ls="--",
                   label=f"the curve's plateau: {c['suggested']}")
    if x.size and x.max() >= 10 * max(x.min(), 1):
        ax.set_xscale("log")
        ax.set_xticks(x, [str(int(v)) for v in x])
        ax.minorticks_off()
    ax.set_xlabel("number of selected features")
    ax.set_ylabel(f"criterion ({c['criterion'].replace('_', ' ')})")
    ax.legend(loc="best", frameon=False)
    ax.grid(alpha=0.3)
    return fig


def _null_distribution(f):
    v = f["verdict"]
    t, r = v.test, v.relevance
    show_rel = r is not None and r.n_relevant > 0
    fig, axes = _figure(11 if show_rel else 7.5, 3.8, ncols=2 if show_rel else 1)
    ax = axes[0]
    null = np.asarray(t.null, dtype=float)
    ax.hist(null, bins=min(25, max(5, null.size // 4)), color=_RANDOM, alpha=0.6,
            label=("every subset" if t.exact else f"{null.size} random subsets")
            + f" of {v.n_features}")
    ax.axvline(t.statistic, color=_CHOSEN, lw=2.2, label="the selection")
    lo, hi = min(null.min(), t.statistic), max(null.max(), t.statistic)
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    ax.set_xlim(lo - pad, hi + pad)  # the selection's line never on the frame
    ax.set_xlabel(f"criterion ({t.criterion.replace('_', ' ')})"
                  + (", on held-out rows" if v.held_out else ""))
    ax.set_ylabel("subsets")
    ax.set_title(f"agreement test: z = {t.z_score:.2f}, p = {t.p_value:.3g}")
    ax.legend(loc="upper left", frameon=False)
    if show_rel:
        from scipy.stats import hypergeom

        ax = axes[1]
        h = np.arange(0, min(r.n_relevant, r.n_selected) + 1)
        pmf = hypergeom(r.n_features, r.n_relevant, r.n_selected).pmf(h)
        ax.bar(h, pmf, color=[_CHOSEN if x == r.in_selection else _RANDOM for x in h],
               alpha=0.85)
        ax.axvline(r.expected, color="black", ls=":", lw=1.3,
                   label=f"expected for a random subset: {r.expected:.1f}")
        ax.axvline(r.in_selection, color=_CHOSEN, lw=2.2,
                   label=f"the selection: {r.in_selection}")
        ax.set_xlabel(f"relevant features among {r.n_selected} (of {r.n_relevant} relevant)")
        ax.set_ylabel("probability for a random subset")
        ax.set_title(f"relevance test: {r.in_selection} relevant, p = {r.p_value:.3g}")
        ax.legend(loc="best", frameon=False)
        if h.size <= 15:
            ax.set_xticks(h)
    return fig


def _candidates(f):
    cands = f["candidates"]
    labels = [c["method"] + (f" (K={c['n_clusters']})" if c.get("n_clusters") else "")
              for c in cands]
    y = np.arange(len(cands))[::-1]
    fig, axes = _figure(11, 0.9 + 0.45 * len(cands), ncols=2, sharey=True)
    chosen = [c["method"] == f["method"] for c in cands]
    colors = [_MUTED if c.get("degenerate") else _CHOSEN if ch else _OTHER
              for c, ch in zip(cands, chosen)]
    z = np.array([np.nan if c.get("z_score") is None else c["z_score"] for c in cands], float)
    axes[0].barh(y, np.nan_to_num(z), color=colors)
    top = np.nanmax(np.abs(z)) if np.isfinite(z).any() else 1.0
    for yi, c, zi in zip(y, cands, z):
        note = ("unusable: " + str(c["degenerate"])[:40] if c.get("degenerate") else
                "not compared" if not np.isfinite(zi) else
                "" if c.get("relevant_hits") is None else f"{c['relevant_hits']} relevant")
        axes[0].text(max(np.nan_to_num(zi), 0) + 0.02 * top, yi, note, va="center",
                     fontsize=9)
    axes[0].set_xlim(min(0, np.nanmin(z) if np.isfinite(z).any() else 0) * 1.1, top * 1.45)
    axes[0].axvline(0, color="black", lw=0.8)
    axes[0].set_yticks(y, labels)
    axes[0].set_xlabel("evidence: z-score of its top features against random subsets")
    axes[0].set_title("what the data say (label-free)")
    prior = np.array([np.nan if c.get("prior_gain") is None else 100 * c["prior_gain"]
                      for c in cands], float)
    axes[1].barh(y, np.nan_to_num(prior), color=colors)
    for yi, p in zip(y, prior):
        if not np.isfinite(p):
            axes[1].text(0, yi, " no prediction", va="center", fontsize=9, color="0.3")
    axes[1].axvline(0, color="black", lw=0.8)
    axes[1].set_xlabel("prior: predicted ACC gain over random subsets (points)")
    axes[1].set_title("what the recommender predicts")
    for ax in axes:
        ax.grid(axis="x", alpha=0.3)
    return fig


def _neighbours(f):
    nbs = f["recommendation"]["neighbours"]
    method = f["recommendation"]["method"]
    y = np.arange(len(nbs))[::-1]
    fig, (ax,) = _figure(7.5, 0.9 + 0.45 * len(nbs))
    dist = np.array([nb["distance"] for nb in nbs], float)
    ax.barh(y, dist, color=_OTHER, alpha=0.8)
    for yi, nb, dv in zip(y, nbs, dist):
        ax.text(dv + 0.02 * dist.max(), yi, f"{method} {100 * nb['gain']:+.1f} pts, best "
                f"{nb['best']}", va="center", fontsize=9)
    ax.set_yticks(y, [f"{nb['dataset']} ({nb['source']})" for nb in nbs])
    ax.set_xlim(0, dist.max() * 1.75)
    ax.set_xlabel("distance in meta-feature space (shorter = more alike)")
    ax.grid(axis="x", alpha=0.3)
    return fig


def _stability(f):
    s = f["verdict"].stability
    freq = np.asarray(s.selections, dtype=float).mean(axis=0)
    selected = f["ranking"] <= f["count"]
    order = np.lexsort((f["ranking"], -freq))[:max(STABILITY_SHOWN, 0)]
    order = order[freq[order] > 0] if (freq[order] > 0).any() else order
    fig, (ax,) = _figure(max(5.0, 0.3 * order.size + 2), 3.6)
    x = np.arange(order.size)
    ax.bar(x, freq[order], color=[_CHOSEN if selected[j] else _OTHER for j in order])
    ax.set_xticks(x, [str(f["names"][j]) for j in order], rotation=60, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(f"selected in {s.selections.shape[0]} refits (share)")
    ax.set_title(f"stability {s.value:.2f} [{s.ci_low:.2f}, {s.ci_high:.2f}]; orange: the "
                 "selection")
    ax.grid(axis="y", alpha=0.3)
    return fig


# ------------------------------------------------------------------ the page
def _not_computed(why):
    return f"<p class='muted'><b>Not computed:</b> {escape(why)}</p>"


def _section(anchor, title, figure, caption, facts_ok, why_not, alt, extra=""):
    head = f"<h2 id='{anchor}'>{escape(title)}</h2>"
    if not facts_ok:
        return head + _not_computed(why_not) + extra, 0
    from matplotlib import rc_context

    with rc_context({**PLOT_RC, "svg.hashsalt": "ufsel"}):
        img = _embed(figure(), alt)
    return (head + f"<figure>{img}<figcaption>{caption}</figcaption></figure>" + extra), 1


def _fmt(x, spec=".3g"):
    return "\u2013" if x is None or (isinstance(x, float) and math.isnan(x)) else \
        format(x, spec)


def _relevant_text(f):
    if f["n_relevant"] is not None:
        return str(f["n_relevant"])
    r = None if f["verdict"] is None else f["verdict"].relevance
    if r is not None:
        rows = ", on its held-out rows" if f["verdict"].held_out else ""
        return f"{r.n_relevant} (counted by the verdict{rows})"
    return "not computed"


def _header(f, title):
    v = f["verdict"]
    shape = (f"{f['n_samples']} samples x {f['n_features']} features"
             if f["n_samples"] is not None else f"{f['n_features']} features")
    params = ", ".join(f"{k}={v_!r}" for k, v_ in sorted(f["params"].items()))
    std = ("yes" if f["standardized"] else "no") + (
        f" (the features' ranges differ {f['scale_spread']:.3g}-fold)"
        if f["scale_spread"] is not None else "")
    count = (f"{f['count']} (given)" if f["count_given"] else
             f"{f['count']} (chosen without labels: {f['count_decided_by']})")
    rows = [["data", escape(shape)],
            ["method", f"<b>{escape(f['method_class'])}</b>"
             + (f" <span class='muted'>({escape(params)})</span>" if params else "")],
            ["K (clusters of the criterion)", escape(_fmt(f["n_clusters"], "d")
                                                    if f["n_clusters"] is not None
                                                    else "not estimated")],
            ["count", escape(count)],
            ["standardised", escape(std)],
            ["relevant features", escape(_relevant_text(f))],
            ["verdict", f"<b>{escape(v.outcome)}</b>" if v is not None
             else "<span class='muted'>not computed</span>"]]
    parts = [f"<h1>{escape(title)}</h1>", html_table(["step", "result"], rows, left=2)]
    if v is not None:
        parts.append(f"<p class='verdict'>{escape(v.summary())}</p>")
    else:
        parts.append(_not_computed("no verdict (every feature is selected, or verdict=False)."))
    if f["count_note"]:
        parts.append(f"<p><b>Count:</b> {escape(f['count_note'])}.</p>")
    if f["recommendation_summary"]:
        parts.append(f"<p><b>Prior:</b> {escape(f['recommendation_summary'])}</p>")
    return "".join(parts)


def _selected_table(f):
    order = np.argsort(f["ranking"], kind="stable")[:f["count"]]
    relevant = set(f["relevant"] or [])
    rows = [[escape(f["names"][j]), escape(int(f["ranking"][j])), escape(_fmt(f["scores"][j])),
             "yes" if j in relevant else ("not computed" if f["relevant"] is None else "no")]
            for j in order]
    return ("<h2 id='selected'>The selected features</h2>"
            + html_table(["feature", "rank", "score", "relevant"], rows))


def _candidate_table(f):
    rows = [[(f"<b>{escape(c['method'])}</b> (chosen)" if c["method"] == f["method"]
              else escape(c["method"])), escape(_fmt(c.get("n_clusters"), "")),
             escape(_fmt(None if c.get("prior_gain") is None else 100 * c["prior_gain"], "+.1f")),
             escape(_fmt(c.get("z_score"), ".2f")), escape(_fmt(c.get("relevant_hits"), "")),
             escape(c.get("degenerate") or "")] for c in f["candidates"]]
    return html_table(["candidate", "K", "prior (ACC points)", "z-score", "relevant in top",
                       "unusable because"], rows, left=1, left_last=True)


def selection_report(selector, path, *, title=None, feature_names=None):
    """Write one self-contained HTML page showing what a fitted AutoSelector did.

    Parameters
    ----------
    selector : AutoSelector
        A fitted :class:`AutoSelector` (or the result of :func:`select_features`).
    path : str or path-like
        The HTML file to write (atomically: an interrupted run leaves no half file).
    title : str, default=None
        The page's title; default "Feature selection report".
    feature_names : list of str, default=None
        The features' names; default the selector's ``feature_names_in_``, else
        ``x0, x1, ...``.

    Returns
    -------
    path : pathlib.Path
        The file written.

    Notes
    -----
    The page has no script and no external resource: its figures are SVG
    embedded in the file, so it opens from disk in any browser and can be sent
    as one attachment. It needs matplotlib (``pip install 'ufsel[plot]'``).

    It opens with the data's shape, the chosen method, K, the count, whether the
    features were standardised and the verdict with its summary, then draws:

    1. the **feature-count curve**: the criterion of the chosen method's top
       features against their number, beside random subsets of each size (mean
       and one standard deviation), with the chosen count marked;
    2. the **null distribution**: the selection's criterion against the random
       subsets of its size (the verdict's agreement test), and, when there are
       relevant features, how many of them it holds against the hypergeometric
       distribution of a random subset (the relevance test);
    3. each **candidate's evidence** (its top features' z-score against random
       subsets, the relevant features among them) beside its **prior** (the
       recommender's predicted gain);
    4. the recommender's **nearest benchmark data sets**, with the recommended
       method's gain on each;
    5. the **stability**: how often each feature was selected over the
       verdict's refits on resamples.

    A piece the run did not compute (no curve when the count was given, no
    recommendation for a named method, no stability when not asked) is said
    to be "not computed" in its place.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_clusters
    >>> from ufsel.model_selection import select_features, selection_report
    >>> X, _, _ = make_planted_clusters(random_state=0)
    >>> sel = select_features(X, n_resamples=0)
    >>> selection_report(sel, "selection.html")  # doctest: +SKIP
    """
    import_optional("matplotlib", purpose="The selection report")
    f = _facts(selector, feature_names)
    title = title or "Feature selection report"
    v = f["verdict"]
    sections, n_fig = [], 0
    compared = any(c.get(k) is not None for c in f["candidates"]
                   for k in ("z_score", "prior_gain"))
    crit = None if f["curve"] is None else f["curve"]["criterion"].replace("_", " ")
    specs = [
        ("curve", "The feature-count curve", _count_curve,
         f"The label-free criterion ({crit}) of the top features of {f['method_class']}'s "
         "ranking against their number, and of random subsets of each size (dotted: mean; "
         "band: one standard deviation). The orange line is the chosen count.",
         f["curve"] is not None,
         f"the feature-count curve was {f['curve_status']} ({f['count']} features).",
         "feature-count curve"),
        ("null", "The selection against random subsets", _null_distribution,
         "Left: the selection's criterion (orange) against random subsets of the same size "
         "(the verdict's agreement test" + (", on rows the selection was not made on"
                                            if v is not None and v.held_out else "")
         + "). Right, when there are relevant features: how many of them the selection holds "
         "(orange) against the distribution for a random subset (the relevance test).",
         v is not None, "no verdict (every feature is selected, or verdict=False).",
         "null distribution"),
        ("candidates", "The candidates: evidence beside prior", _candidates,
         "Each candidate configuration (orange: the chosen one; grey: unusable). Left: the "
         "z-score of its top features against random subsets, averaged over the comparison "
         "counts, with the relevant features among its top. Right: the recommender's "
         "predicted ACC gain over random subsets, learnt on the benchmark data sets.",
         compared, "one candidate, not compared with others, and no prior (a named "
         "method asks the recommender nothing)." if f["candidates"] else
         "no candidate was recorded.", "candidates",
         _candidate_table(f) if f["candidates"] else ""),
        ("neighbours", "The nearest benchmark data sets", _neighbours,
         "The benchmark data sets nearest to these data by their label-free meta-features, "
         "which the recommender's prior averages over; beside each, the recommended method's "
         "gain there and the best method there."
         + (f" Similarity to the training data sets: {f['choice']['similarity']:.2f} "
            "(1 = like them, towards 0 = unlike any)." if isinstance(
                f["choice"].get("similarity"), float) else ""),
         f["recommendation"] is not None and bool(f["recommendation"]["neighbours"]),
         "a named method, or a comparison of every candidate, asks the recommender nothing.",
         "nearest data sets"),
        ("stability", "Stability", _stability,
         "How often each feature (the most often selected first) was among the selected "
         "ones when the method was refitted on resamples of the rows; orange: the "
         "selection. Nogueira et al.'s stability: 1 = the same features every time, 0 = no "
         "more alike than random choices.",
         v is not None and v.stability is not None,
         "no verdict." if v is None else (v.stability_note or "not asked (n_resamples=0)."),
         "stability"),
    ]
    for anchor, heading, draw, caption, ok, why, alt, *extra in specs:
        html_, k = _section(anchor, heading, lambda d=draw: d(f), escape(caption), ok, why, alt,
                            *extra)
        sections.append(html_)
        n_fig += k
    nav = "<p>" + " · ".join(f"<a href='#{a}'>{escape(h)}</a>" for a, h, *_ in specs) \
        + " · <a href='#selected'>The selected features</a></p>"
    body = (_header(f, title) + nav + "".join(sections) + _selected_table(f)
            + "<p class='muted'>Written by ufsel.model_selection.selection_report; no label "
            "was used.</p>")
    path = Path(path)
    atomic_write_text(path, html_page(title, body))
    return path
