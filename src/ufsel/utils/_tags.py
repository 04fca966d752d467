"""ufsel's estimator tags: scikit-learn's :class:`~sklearn.utils.Tags` plus the selector's
capabilities that scikit-learn has no tag for.

As imbalanced-learn adds ``SamplerTags``, ufsel adds :class:`SelectorTags` in the
``selector_tags`` field of a :class:`Tags` subclass; a selector sets them in its
``__sklearn_tags__`` and :func:`get_selector_tags` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from sklearn.utils import Tags as _SklearnTags
from sklearn.utils import get_tags

__all__ = ["SelectorTags", "Tags", "get_selector_tags", "selectors_with"]


@dataclass(slots=True)
class SelectorTags:
    """What a selector can do, for the callers that choose how to fit it.

    Parameters
    ----------
    uses_n_clusters : bool, default=False
        The scores depend on ``n_clusters`` at the estimator's current settings
        (SPEC: only with ``scoring="phi3"``);
        :class:`~ufsel.model_selection.AutoSelector` tries such a method at
        several cluster counts.
    scores_depend_on_count : bool, default=False
        The scores change with ``n_features_to_select`` (MCFS, DGUFS, RNE); such a
        selector implements ``_fit_rankings``, and ``fit_rankings`` fits it per count.
    supports_dask : bool, default=False
        ``fit`` accepts a ``dask.array.Array``, read only through the dask-aware
        blocks of :mod:`ufsel.linalg` and :mod:`ufsel.graph`, never whole.
    sparse_native : bool, default=False
        ``fit`` never forms a dense n x d copy of sparse X; the other selectors
        densify it, refusing a copy above ``max_dense_bytes``
        (:func:`ufsel.set_config`).
    """

    uses_n_clusters: bool = False
    scores_depend_on_count: bool = False
    supports_dask: bool = False
    sparse_native: bool = False


@dataclass(slots=True)
class Tags(_SklearnTags):
    """scikit-learn's :class:`~sklearn.utils.Tags` with the ``selector_tags`` field.

    Parameters
    ----------
    selector_tags : SelectorTags or None, default=None
        The selector's capabilities; None for an estimator that is no ufsel selector.
    """

    selector_tags: SelectorTags | None = None

    @classmethod
    def from_sklearn(cls, tags, selector_tags=None):
        """The same tags, as this class, with ``selector_tags`` added (kept if present)."""
        if isinstance(tags, cls):
            if tags.selector_tags is None:
                tags.selector_tags = selector_tags
            return tags
        values = {f.name: getattr(tags, f.name) for f in fields(_SklearnTags)}
        return cls(**values, selector_tags=selector_tags)


def get_selector_tags(estimator):
    """The :class:`SelectorTags` of a selector (an instance, not a class).

    Parameters
    ----------
    estimator : estimator instance
        A ufsel selector, or any scikit-learn estimator (which gets the defaults,
        every capability False).

    Returns
    -------
    tags : SelectorTags
        The selector's capabilities at its current parameters.

    Examples
    --------
    >>> from ufsel import SPEC
    >>> from ufsel.utils import get_selector_tags
    >>> get_selector_tags(SPEC(scoring="phi3")).uses_n_clusters
    True
    """
    tags = getattr(get_tags(estimator), "selector_tags", None)
    return tags if tags is not None else SelectorTags()


def selectors_with(tag):
    """The registered selectors whose :class:`SelectorTags` has ``tag`` set, at their defaults.

    Parameters
    ----------
    tag : str
        A field of :class:`SelectorTags`, such as ``"sparse_native"``.

    Returns
    -------
    selectors : dict of str -> type
        Registered name -> selector class, sorted by name.
    """
    from .._registry import SELECTORS

    return {name: cls for name, cls in sorted(SELECTORS.items())
            if getattr(get_selector_tags(cls()), tag)}
